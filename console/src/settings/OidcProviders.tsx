// "Sign in with OpenID Connect" on the settings page: the app's providers, a form that adds one
// (the server fetches the issuer's discovery document first, and a refusal is shown at the field
// it names), and removal after a confirmation. The client secret is typed once and never shown.

import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { addOidcProvider, listOidcProviders, removeOidcProvider } from '../api/accounts';
import type { OidcProvider } from '../api/accounts';
import { asApiError } from '../api/graphql';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAction, useAsync } from '../components/useAsync';

const DEFAULT_SCOPES = 'openid email profile';
const FIELDS = [
  { name: 'name', label: 'Name', placeholder: 'google', hint: 'What clients give loginUserWithOidc as provider.' },
  { name: 'issuer', label: 'Issuer', placeholder: 'https://accounts.google.com', hint: 'Its /.well-known/openid-configuration is fetched and checked.' },
  { name: 'clientId', label: 'Client id', placeholder: '1234.apps.googleusercontent.com' },
  { name: 'clientSecret', label: 'Client secret', secret: true, hint: 'Stored sealed; never shown again.' },
  { name: 'scopes', label: 'Scopes', placeholder: DEFAULT_SCOPES, hint: 'Separated by spaces; must include openid.' },
] as const;
type FieldName = (typeof FIELDS)[number]['name'];
const EMPTY: Record<FieldName, string> = { name: '', issuer: '', clientId: '', clientSecret: '', scopes: DEFAULT_SCOPES };

export function OidcProviders({ appId }: { appId: string }) {
  const providers = useAsync(() => listOidcProviders(appId), [appId]);
  const [form, setForm] = useState(EMPTY);
  const [removing, setRemoving] = useState<OidcProvider | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const adding = useAction();
  const removal = useAction();
  const refused = adding.error ? asApiError(adding.error).errors[0] : undefined;
  const refusedField = typeof refused?.extensions?.field === 'string' ? refused.extensions.field : undefined;

  // A refused field takes the focus, so a keyboard user lands on what to fix.
  useEffect(() => {
    if (refusedField) document.getElementById(`oidc-${refusedField}`)?.focus();
  }, [adding.error]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    void adding.run(async () => {
      const scopes = form.scopes.split(/\s+/).filter(Boolean);
      const added = await addOidcProvider(appId, {
        name: form.name.trim(),
        issuer: form.issuer.trim(),
        clientId: form.clientId.trim(),
        clientSecret: form.clientSecret,
        ...(scopes.length > 0 ? { scopes } : {}),
      });
      setForm(EMPTY);
      setNotice(`Added ${added.name}: clients send users to ${added.authorizationEndpoint}.`);
      providers.reload();
    });
  };

  const remove = () =>
    void removal.run(async () => {
      if (!removing) return;
      await removeOidcProvider(appId, removing.name);
      setNotice(`Removed ${removing.name}. Its users' identities stay, and sign in again once a provider of the same issuer is added.`);
      setRemoving(null);
      providers.reload();
    });

  return (
    <section className="card settings-group" aria-labelledby="oidc-title">
      <h2 id="oidc-title">Sign in with OpenID Connect</h2>
      <p className="hint">
        Providers the app's users sign in with (loginUserWithOidc). Register a confidential client at the provider with your client app's
        redirect URI, then add it here.
      </p>
      {providers.loading && !providers.data && <Loading label="Loading the providers…" />}
      <ErrorBox error={providers.error} title="Could not load the providers" />
      {providers.data && providers.data.length === 0 && <p className="empty">No providers yet.</p>}
      {providers.data && providers.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">OpenID providers</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Issuer</th>
                <th scope="col">Client id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Sign-in page</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {providers.data.map((p) => (
                <tr key={p.name}>
                  <td>{p.name}</td>
                  <td>
                    <code>{p.issuer}</code>
                  </td>
                  <td>
                    <code>{p.clientId}</code>
                  </td>
                  <td>{p.scopes.join(' ')}</td>
                  <td>
                    <code>{p.authorizationEndpoint}</code>
                  </td>
                  <td>{new Date(p.createdAt).toLocaleString()}</td>
                  <td>
                    <button
                      type="button"
                      className="button small danger"
                      aria-label={`Remove ${p.name}`}
                      onClick={() => {
                        setNotice(null);
                        setRemoving(p);
                      }}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} aria-label="Add an OpenID provider">
        <h3>Add a provider</h3>
        <div className="form-grid">
          {FIELDS.map((f) => {
            const id = `oidc-${f.name}`;
            const isRefused = refusedField === f.name;
            return (
              <div key={f.name} className="field">
                <label htmlFor={id}>{f.label}</label>
                <input
                  id={id}
                  type={'secret' in f ? 'password' : 'text'}
                  autoComplete={'secret' in f ? 'new-password' : 'off'}
                  spellCheck={false}
                  required={f.name !== 'scopes'}
                  placeholder={'placeholder' in f ? f.placeholder : undefined}
                  value={form[f.name]}
                  onChange={(e) => setForm({ ...form, [f.name]: e.target.value })}
                  aria-invalid={isRefused ? true : undefined}
                  aria-describedby={[isRefused ? `${id}-error` : '', 'hint' in f ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined}
                />
                {'hint' in f && (
                  <span id={`${id}-hint`} className="hint">
                    {f.hint}
                  </span>
                )}
                {isRefused && (
                  <p id={`${id}-error`} className="field-error">
                    {refused?.message}
                  </p>
                )}
              </div>
            );
          })}
        </div>
        <div className="save-bar">
          <button type="submit" className="button primary" disabled={adding.busy}>
            {adding.busy ? 'Checking the issuer…' : 'Add provider'}
          </button>
        </div>
        <ErrorBox error={adding.error} title="The provider was not added" />
      </form>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel="Remove provider"
        busy={removal.busy}
        onConfirm={remove}
        onClose={() => setRemoving(null)}
      >
        <p>
          Users can no longer sign in with <strong>{removing?.name}</strong> ({removing?.issuer}). Their accounts and linked identities stay; adding a
          provider of the same issuer again lets them sign in as before.
        </p>
        <ErrorBox error={removal.error} title="The provider was not removed" />
      </ConfirmDialog>
    </section>
  );
}
