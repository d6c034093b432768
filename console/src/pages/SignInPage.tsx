// Sign-in with the platform key. The key is checked against the management API before it is
// kept (in sessionStorage only).

import { useState } from 'react';
import type { FormEvent } from 'react';
import { checkKey } from '../api/admin';
import { signIn } from '../api/session';
import { ErrorBox } from '../components/ErrorBox';
import { useAction } from '../components/useAsync';

export function SignInPage() {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await checkKey(key.trim());
      signIn(key.trim());
    });
  };

  return (
    <main className="signin" id="main">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Tessera console</h1>
        <p>
          Sign in with the server's platform key: <code>TESSERA_ADMIN_KEY</code>, or the contents of <code>.tessera/admin-key</code> in the
          server's data directory.
        </p>
        <label htmlFor="platform-key">Platform key</label>
        <input
          id="platform-key"
          type="password"
          autoComplete="current-password"
          autoFocus
          required
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-describedby="platform-key-help"
        />
        <p id="platform-key-help" className="hint">
          Kept in this tab only (session storage) and sent to this server's management API.
        </p>
        <ErrorBox error={error} title="Sign-in failed" />
        <button type="submit" className="button primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
