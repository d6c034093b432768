// An app's admin tokens: create (the token is shown once), list, revoke.

import { useState } from 'react';
import type { FormEvent } from 'react';
import { createAdminToken, getApp, revokeAdminToken } from '../api/admin';
import { CopyField } from '../components/CopyButton';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAsync } from '../components/useAsync';
import { AppHeading } from './AppHeading';

export function TokensPage({ appId }: { appId: string }) {
  const app = useAsync(() => getApp(appId), [appId]);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [revokeError, setRevokeError] = useState<unknown>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const token = await createAdminToken(appId, name.trim());
      setCreated({ name: name.trim(), token });
      setName('');
      app.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async () => {
    if (!revoking) return;
    setBusy(true);
    setRevokeError(null);
    try {
      await revokeAdminToken(appId, revoking);
      setRevoking(null);
      app.reload();
    } catch (err) {
      setRevokeError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <AppHeading app={app.data} appId={appId} page="Admin tokens" />
      <p className="lead">
        Admin tokens give full access to this app's API, bypassing its permission rules: use them for servers and scripts, never in a browser
        app. Only a hash is stored, so a token is shown once, when it is created.
      </p>
      <form className="card inline-form" onSubmit={create} aria-labelledby="create-token-title">
        <h2 id="create-token-title">Create a token</h2>
        <div className="row">
          <label htmlFor="token-name">Name</label>
          <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required pattern="[A-Za-z0-9._\-]+" title="Letters, digits, '.', '_' and '-'" />
          <button type="submit" className="button primary" disabled={busy || name.trim() === ''}>
            Create token
          </button>
        </div>
        <ErrorBox error={error} title="Could not create the token" />
      </form>
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">Live tokens</h2>
        {app.loading && !app.data && <Loading label="Loading tokens…" />}
        <ErrorBox error={app.error} title="Could not load the tokens" />
        {app.data && app.data.adminTokens.length === 0 && <p className="empty">No live admin tokens.</p>}
        {app.data && app.data.adminTokens.length > 0 && (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">Live admin tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {app.data.adminTokens.map((t) => (
                  <tr key={t.name}>
                    <td>{t.name}</td>
                    <td>
                      <time dateTime={t.createdAt}>{new Date(t.createdAt).toLocaleString()}</time>
                    </td>
                    <td className="cell-actions">
                      <button type="button" className="button small danger" onClick={() => setRevoking(t.name)}>
                        Revoke {t.name}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <Dialog title={`Token "${created?.name ?? ''}" created`} open={created !== null} onClose={() => setCreated(null)}>
        <p>
          Copy it now: <strong>it will not be shown again.</strong> Send it as <code>Authorization: Bearer &lt;token&gt;</code>.
        </p>
        {created && <CopyField value={created.token} label="New admin token" />}
        <div className="dialog-actions">
          <button type="button" className="button primary" onClick={() => setCreated(null)} autoFocus>
            Done
          </button>
        </div>
      </Dialog>
      <ConfirmDialog open={revoking !== null} title={`Revoke "${revoking ?? ''}"?`} confirmLabel="Revoke token" busy={busy} onConfirm={revoke} onClose={() => setRevoking(null)}>
        <p>Requests with this token are refused from the next one on. This cannot be undone.</p>
        <ErrorBox error={revokeError} title="Could not revoke the token" />
      </ConfirmDialog>
    </>
  );
}
