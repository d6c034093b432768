// The apps of this server: list with endpoint URLs to copy, create, delete (after typing the
// app's name to confirm).

import { useState } from 'react';
import type { FormEvent } from 'react';
import { createApp, deleteApp, listApps, socketUrlOf } from '../api/admin';
import type { AppSummary } from '../api/admin';
import { CopyField } from '../components/CopyButton';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { Link } from '../components/Link';
import { useAction, useAsync } from '../components/useAsync';
import { ExportAppButton, ForkAppDialog } from './AppPortability';
import { hrefOf, navigate } from '../router';

const STARTER_SCHEMA = `# The app's schema: types, fields, relations and permissions.
# See docs/schema-language.md. User and Role are built in.
`;

export function AppsPage() {
  const apps = useAsync(listApps, []);
  const [deleting, setDeleting] = useState<AppSummary | null>(null);
  const [forking, setForking] = useState<AppSummary | null>(null);

  return (
    <>
      <h1 tabIndex={-1}>Apps</h1>
      <CreateAppForm />
      <section aria-labelledby="apps-list-title">
        <h2 id="apps-list-title">Apps on this server</h2>
        {apps.loading && !apps.data && <Loading label="Loading apps…" />}
        <ErrorBox error={apps.error} title="Could not load the apps" />
        {apps.data?.length === 0 && <p className="empty">No apps yet: create one above.</p>}
        {apps.data && apps.data.length > 0 && (
          <ul className="app-list">
            {apps.data.map((app) => (
              <li key={app.id} className="card app-card">
                <div className="app-card-head">
                  <h3>
                    <Link href={hrefOf({ page: 'schema', appId: app.id })}>{app.name}</Link>
                  </h3>
                  <span className="badge" title="Live schema version">
                    schema v{app.schemaVersion}
                  </span>
                </div>
                <dl className="endpoints">
                  <dt>Id</dt>
                  <dd>
                    <code>{app.id}</code>
                  </dd>
                  <dt>HTTP endpoint</dt>
                  <dd>
                    <CopyField value={app.endpoint} label={`${app.name} HTTP endpoint`} />
                  </dd>
                  <dt>WebSocket endpoint</dt>
                  <dd>
                    <CopyField value={socketUrlOf(app.endpoint)} label={`${app.name} WebSocket endpoint`} />
                  </dd>
                </dl>
                <div className="actions">
                  <Link className="button small" href={hrefOf({ page: 'data', appId: app.id })}>
                    Data
                  </Link>
                  <Link className="button small" href={hrefOf({ page: 'explorer', appId: app.id })}>
                    Explorer
                  </Link>
                  <ExportAppButton app={app} />
                  <button type="button" className="button small" onClick={() => setForking(app)}>
                    Fork {app.name}
                  </button>
                  <button type="button" className="button small danger" onClick={() => setDeleting(app)}>
                    Delete {app.name}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {forking && <ForkAppDialog app={forking} onClose={() => setForking(null)} onForked={apps.reload} />}
      {deleting && <DeleteAppDialog app={deleting} onClose={() => setDeleting(null)} onDeleted={apps.reload} />}
    </>
  );
}

function CreateAppForm() {
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const app = await createApp(name.trim(), STARTER_SCHEMA);
      navigate(hrefOf({ page: 'schema', appId: app.id }));
    });
  };
  return (
    <form className="card inline-form" onSubmit={submit} aria-labelledby="create-app-title">
      <h2 id="create-app-title">Create an app</h2>
      <div className="row">
        <label htmlFor="new-app-name">Name</label>
        <input
          id="new-app-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          pattern="[A-Za-z][A-Za-z0-9_\-]*"
          title="Letters, digits, - and _, starting with a letter"
          required
          aria-describedby="new-app-name-hint"
        />
        <button type="submit" className="button primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create app'}
        </button>
      </div>
      <p id="new-app-name-hint" className="hint">
        Letters, digits, - and _, starting with a letter. The app starts with an empty schema; write it on the Schema page.
      </p>
      <ErrorBox error={error} title="Could not create the app" />
    </form>
  );
}

function DeleteAppDialog({ app, onClose, onDeleted }: { app: AppSummary; onClose: () => void; onDeleted: () => void }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    if (typed !== app.name) return;
    setBusy(true);
    try {
      await deleteApp(app.id);
      onClose();
      onDeleted();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog open title={`Delete ${app.name}?`} confirmLabel="Delete app" busy={busy} confirmDisabled={typed !== app.name} onConfirm={confirm} onClose={onClose}>
      <p>
        This deletes the app <strong>{app.name}</strong> and <strong>all its data</strong>, users and tokens. It cannot be undone.
      </p>
      <label htmlFor="confirm-app-name">Type the app's name to confirm</label>
      <input id="confirm-app-name" value={typed} onChange={(e) => setTyped(e.target.value)} autoFocus autoComplete="off" />
      <ErrorBox error={error} title="Could not delete the app" />
    </ConfirmDialog>
  );
}
