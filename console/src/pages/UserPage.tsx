// One user of an app: every field, the objects it is related to (its roles with their access
// level, and whatever relations the app gives User), whether they have two-factor login on, and
// what an operator does to a user: edit, set a new password, send the verification mail, end
// every session, turn off two-factor login, delete. Through the app's own API with the platform
// key; who has two-factor login on comes from the management API.

import { useState } from 'react';
import type { FormEvent } from 'react';
import { loadTwoFactor } from '../api/accounts';
import { appPath } from '../api/admin';
import { platformKey } from '../api/session';
import { CopyField } from '../components/CopyButton';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { Link } from '../components/Link';
import { useAction, useAsync } from '../components/useAsync';
import { accountMutationsOf, disableTwoFactor, endAllSessions, sendVerificationMail } from '../data/accounts';
import { USER_TYPE, loadAppModel } from '../data/model';
import type { AppModel, Column, ModelInfo } from '../data/model';
import { RowForm } from '../data/RowForm';
import { TwoFactorState } from '../data/TwoFactor';
import { deleteRow, loadRow, saveRow } from '../data/rows';
import type { Row } from '../data/rows';
import { hrefOf, navigate } from '../router';
import { FieldCell, RelatedList } from './UserRelated';

export function UserPage({ appId, userId }: { appId: string; userId: string }) {
  const endpoint = appPath(appId);
  const appModel = useAsync(() => loadAppModel(endpoint, platformKey()), [endpoint]);
  const model = appModel.data?.byName.get(USER_TYPE);
  const user = useAsync(async () => (model ? loadRow(endpoint, platformKey(), model, userId) : null), [endpoint, model, userId]);
  const loading = (appModel.loading && !appModel.data) || (user.loading && !user.data);
  return (
    <>
      <h1 tabIndex={-1}>
        {user.data ? `User ${String(user.data.username)}` : 'User'} <span className="heading-app">· {appId}</span>
      </h1>
      <p>
        <Link href={hrefOf({ page: 'users', appId })}>← All users</Link>
      </p>
      {loading && <Loading label="Loading the user…" />}
      <ErrorBox error={appModel.error ?? user.error} title="Could not load the user" />
      {appModel.data && !model && <p role="alert">The app's API has no {USER_TYPE} type.</p>}
      {model && !user.loading && !user.error && !user.data && (
        <p role="alert">
          There is no user with id <code>{userId}</code>. It may have been deleted.
        </p>
      )}
      {appModel.data && model && user.data && <UserView appId={appId} appModel={appModel.data} model={model} user={user.data} endpoint={endpoint} reload={user.reload} />}
    </>
  );
}

function UserView(props: { appId: string; appModel: AppModel; model: ModelInfo; user: Row; endpoint: string; reload: () => void }) {
  const { appId, appModel, model, user, endpoint } = props;
  const [dialog, setDialog] = useState<'edit' | 'password' | 'sessions' | 'twoFactor' | 'delete' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const removal = useAction();
  const mailing = useAction();
  const ending = useAction();
  const disabling = useAction();
  const twoFactor = useAsync(async () => (await loadTwoFactor(appId, [user.id])).get(user.id), [appId, user.id]);
  const username = String(user.username);
  const email = typeof user.email === 'string' && user.email !== '' ? user.email : null;
  const canSetPassword = model.update?.fields.some((f) => f.widget === 'password') ?? false;
  const accounts = accountMutationsOf(appModel.schema);
  const values = model.columns.filter((c) => c.kind !== 'list' && c.name !== 'id');
  const lists = model.columns.filter((c): c is Extract<Column, { kind: 'list' }> => c.kind === 'list');

  const remove = () =>
    void removal.run(async () => {
      await deleteRow(endpoint, platformKey(), model, user.id);
      navigate(hrefOf({ page: 'users', appId }), { replace: true });
    });

  const sendVerification = () => {
    setNotice(null);
    void mailing.run(async () => {
      if (!accounts.sendVerification) return;
      await sendVerificationMail(endpoint, platformKey(), accounts.sendVerification, user.id);
      setNotice(`A verification mail is on its way to ${email ?? username}: the code in it verifies the address within 24 hours.`);
    });
  };

  const endSessions = () =>
    void ending.run(async () => {
      if (!accounts.endSessions) return;
      const ended = await endAllSessions(endpoint, platformKey(), accounts.endSessions, user.id);
      setDialog(null);
      setNotice(
        `Ended ${ended} session${ended === 1 ? '' : 's'} of ${username}. Their refresh tokens and the tokens issued to them before now no longer work: they log in again.`,
      );
    });

  const turnOffTwoFactor = () =>
    void disabling.run(async () => {
      if (!accounts.disableTwoFactor) return;
      const disabled = await disableTwoFactor(endpoint, platformKey(), accounts.disableTwoFactor, user.id);
      setDialog(null);
      setNotice(
        disabled
          ? `Two-factor login of ${username} is off: they log in with their password alone, and may turn it on again with a new secret.`
          : `${username} did not have two-factor login on.`,
      );
      twoFactor.reload();
    });

  return (
    <>
      <div className="actions user-actions">
        {model.update && (
          <button type="button" className="button" onClick={() => setDialog('edit')}>
            Edit user
          </button>
        )}
        {canSetPassword && (
          <button type="button" className="button" onClick={() => setDialog('password')}>
            Set a new password
          </button>
        )}
        {accounts.sendVerification && (
          <button
            type="button"
            className="button"
            onClick={sendVerification}
            disabled={mailing.busy || email === null}
            aria-describedby={email === null ? 'no-email-hint' : undefined}
          >
            {mailing.busy ? 'Sending…' : 'Send verification mail'}
          </button>
        )}
        {accounts.endSessions && (
          <button
            type="button"
            className="button"
            onClick={() => {
              setNotice(null);
              setDialog('sessions');
            }}
          >
            End all sessions
          </button>
        )}
        {accounts.disableTwoFactor && twoFactor.data?.enabled && (
          <button
            type="button"
            className="button"
            onClick={() => {
              setNotice(null);
              setDialog('twoFactor');
            }}
          >
            Turn off two-factor login
          </button>
        )}
        {model.remove && (
          <button type="button" className="button danger" onClick={() => setDialog('delete')}>
            Delete user
          </button>
        )}
      </div>
      {accounts.sendVerification && email === null && (
        <p id="no-email-hint" className="hint">
          {username} has no email address to verify.
        </p>
      )}
      <ErrorBox error={mailing.error} title="The verification mail was not sent" />
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <section className="card" aria-labelledby="user-fields-title">
        <h2 id="user-fields-title">Fields</h2>
        <dl className="details">
          <div className="details-row">
            <dt>id</dt>
            <dd>
              <CopyField value={user.id} label="User id" />
            </dd>
          </div>
          <div className="details-row">
            <dt>two-factor login</dt>
            <dd>
              <TwoFactorState state={twoFactor.data} loading={twoFactor.loading} error={twoFactor.error} />
            </dd>
          </div>
          {values.map((c) => (
            <div key={c.name} className="details-row">
              <dt>{c.name}</dt>
              <dd>
                <FieldCell appId={appId} appModel={appModel} column={c} user={user} />
              </dd>
            </div>
          ))}
        </dl>
      </section>
      {lists.map((c) => (
        <RelatedList key={c.name} appId={appId} appModel={appModel} column={c} user={user} endpoint={endpoint} />
      ))}
      <Dialog title={`Edit ${username}`} open={dialog === 'edit'} onClose={() => setDialog(null)}>
        {dialog === 'edit' && (
          <RowForm
            appModel={appModel}
            model={model}
            mode="update"
            row={user}
            endpoint={endpoint}
            token={platformKey()}
            onCancel={() => setDialog(null)}
            onSaved={() => {
              setDialog(null);
              setNotice('Changes saved.');
              props.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title={`New password for ${username}`} open={dialog === 'password'} onClose={() => setDialog(null)}>
        {dialog === 'password' && (
          <PasswordForm
            model={model}
            user={user}
            endpoint={endpoint}
            onCancel={() => setDialog(null)}
            onSaved={() => {
              setDialog(null);
              setNotice(`Password changed. Tokens issued to ${username} before now no longer work: they log in again with the new password.`);
            }}
          />
        )}
      </Dialog>
      <ConfirmDialog
        open={dialog === 'sessions'}
        title={`End every session of ${username}?`}
        confirmLabel="End all sessions"
        busy={ending.busy}
        onConfirm={endSessions}
        onClose={() => setDialog(null)}
      >
        <p>
          Every refresh token of <strong>{username}</strong> stops working, and so does every token issued to them before now: on each device they
          are logged out, and they log in again with their password. Their password and data stay as they are.
        </p>
        <ErrorBox error={ending.error} title="The sessions were not ended" />
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'twoFactor'}
        title={`Turn off two-factor login of ${username}?`}
        confirmLabel="Turn off two-factor login"
        busy={disabling.busy}
        onConfirm={turnOffTwoFactor}
        onClose={() => setDialog(null)}
      >
        <p>
          For a user who lost their phone: <strong>{username}</strong> then logs in with their password alone, and their recovery codes stop
          working. Make sure it is really them asking. They can turn it on again with a new secret.
        </p>
        <ErrorBox error={disabling.error} title="Two-factor login was not turned off" />
      </ConfirmDialog>
      <ConfirmDialog open={dialog === 'delete'} title={`Delete ${username}?`} confirmLabel="Delete user" busy={removal.busy} onConfirm={remove} onClose={() => setDialog(null)}>
        <p>
          The user <strong>{username}</strong> is deleted, with their role memberships and other many-to-many edges; references to them are
          cleared and their tokens stop working. This cannot be undone.
        </p>
        <ErrorBox error={removal.error} title="Could not delete the user" />
      </ConfirmDialog>
    </>
  );
}

/** An operator's password reset: `update` with the new password, which the admin credential may set. */
function PasswordForm({ model, user, endpoint, onSaved, onCancel }: { model: ModelInfo; user: Row; endpoint: string; onSaved: () => void; onCancel: () => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, run } = useAction();
  const field = model.update?.fields.find((f) => f.widget === 'password');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!field) return;
    void run(async () => {
      await saveRow(endpoint, platformKey(), model, 'update', { id: user.id, [field.name]: password });
      onSaved();
    });
  };
  return (
    <form onSubmit={submit} aria-label="Set a new password">
      <div className="form-grid">
        <div className="field">
          <label htmlFor="new-password">New password</label>
          <input id="new-password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="repeat-password">Repeat it</label>
          <input
            id="repeat-password"
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => {
              setRepeat(e.target.value);
              e.target.setCustomValidity(e.target.value === password ? '' : 'The two passwords differ');
            }}
          />
        </div>
      </div>
      <p className="hint">Every token issued to the user before the change stops working.</p>
      <ErrorBox error={error} title="The password was not changed" />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy || password === '' || password !== repeat}>
          {busy ? 'Saving…' : 'Set password'}
        </button>
      </div>
    </form>
  );
}
