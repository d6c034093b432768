// An app card's export and fork: export asks for a signed link and lets the browser download
// the archive; fork asks for the new app's name and copies the app on the server.

import { useState } from 'react';
import { exportAppUrl, forkApp } from '../api/admin';
import type { AppSummary } from '../api/admin';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';

export function ExportAppButton({ app }: { app: AppSummary }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const url = await exportAppUrl(app.id);
      // The link answers with Content-Disposition: attachment, so the page stays.
      const a = document.createElement('a');
      a.href = url;
      a.download = '';
      document.body.append(a);
      a.click();
      a.remove();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="button small" onClick={() => void download()} disabled={busy} title="Download the app's archive: schema, settings, every row, users">
        {busy ? 'Exporting…' : `Export ${app.name}`}
      </button>
      <ErrorBox error={error} title="Could not export the app" />
    </>
  );
}

export function ForkAppDialog({ app, onClose, onForked }: { app: AppSummary; onClose: () => void; onForked: () => void }) {
  const [name, setName] = useState(`${app.name}-copy`);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    try {
      await forkApp(app.id, name.trim());
      onClose();
      onForked();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog open title={`Fork ${app.name}`} confirmLabel="Fork app" busy={busy} confirmDisabled={name.trim() === ''} onConfirm={confirm} onClose={onClose}>
      <p>
        A new app with the schema, settings and a copy of the data of <strong>{app.name}</strong> (same ids), independent from then on: try a migration on it.
      </p>
      <label htmlFor="fork-app-name">New app's name</label>
      <input id="fork-app-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus autoComplete="off" />
      <ErrorBox error={error} title="Could not fork the app" />
    </ConfirmDialog>
  );
}
