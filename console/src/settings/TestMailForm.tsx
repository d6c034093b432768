// "Send test mail" on the settings page: one mail through the app's saved mail settings, to an
// address the operator gives, with the server's answer shown as it came (UNAVAILABLE carries
// what the mail server said).

import { useState } from 'react';
import type { FormEvent } from 'react';
import { sendTestMail } from '../api/settings';
import { ErrorBox } from '../components/ErrorBox';
import { useAction } from '../components/useAsync';

export function TestMailForm({ appId, unsaved }: { appId: string; unsaved: boolean }) {
  const [to, setTo] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, run } = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const address = to.trim();
    setSent(null);
    void run(async () => {
      await sendTestMail(appId, address);
      setSent(address);
    });
  };

  return (
    <section className="card settings-group" aria-labelledby="test-mail-title">
      <h2 id="test-mail-title">Send a test mail</h2>
      <p className="hint" id="test-mail-hint">
        A short mail through the saved mail settings (the server's, for those left empty), to check that the mail server takes it.
        {unsaved && <strong> Save your changes first: the test uses the saved settings.</strong>}
      </p>
      <form className="inline-form" onSubmit={submit} aria-label="Send a test mail">
        <div className="row">
          <label htmlFor="test-mail-to">To</label>
          <input
            id="test-mail-to"
            type="email"
            autoComplete="email"
            required
            value={to}
            onChange={(e) => setTo(e.target.value)}
            placeholder="you@example.com"
            aria-describedby="test-mail-hint"
          />
          <button type="submit" className="button" disabled={busy || to.trim() === ''}>
            {busy ? 'Sending…' : 'Send test mail'}
          </button>
        </div>
      </form>
      <ErrorBox error={error} title="The test mail was not sent" />
      {sent && (
        <p className="success" role="status">
          The mail server accepted the test mail to {sent}.
        </p>
      )}
    </section>
  );
}
