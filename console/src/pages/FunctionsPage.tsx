// An app's functions: the list with each one's settings, enabling and disabling, a new signing
// secret (shown once, as on creation), deletion after a confirmation, an EVENT function's
// deliveries (?function=<name>), and the form that creates one.

import { Fragment, useMemo, useState } from 'react';
import { deleteFunction, listFunctions, loadApiSchema, rotateFunctionSecret, setFunctionEnabled } from '../api/functions';
import type { AppFunction, FunctionWithSecret } from '../api/functions';
import { CopyField } from '../components/CopyButton';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAction, useAsync } from '../components/useAsync';
import { Deliveries } from '../functions/Deliveries';
import { FunctionForm } from '../functions/FunctionForm';
import { mutationsOf } from '../functions/mutations';
import { hrefOf, navigate, useLocation } from '../router';
import { AppHeading, NoSuchApp } from './AppHeading';

interface ShownSecret extends FunctionWithSecret {
  why: 'created' | 'rotated';
}

export function FunctionsPage({ appId }: { appId: string }) {
  const { search } = useLocation();
  const chosen = new URLSearchParams(search).get('function');
  const functions = useAsync(() => listFunctions(appId), [appId]);
  const apiSchema = useAsync(() => loadApiSchema(appId), [appId]);
  const mutations = useMemo(() => (apiSchema.data ? mutationsOf(apiSchema.data) : undefined), [apiSchema.data]);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [rotating, setRotating] = useState<AppFunction | null>(null);
  const [deleting, setDeleting] = useState<AppFunction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const toggle = useAction();
  const rotation = useAction();
  const removal = useAction();

  if (functions.data === null) return <NoSuchApp appId={appId} />;
  const list = functions.data?.functions;
  const shown = list?.find((f) => f.name === chosen && f.kind === 'EVENT');

  const showDeliveries = (name: string | null) =>
    navigate(`${hrefOf({ page: 'functions', appId })}${name ? `?${new URLSearchParams({ function: name }).toString()}` : ''}`, { replace: true });

  const setEnabled = (fn: AppFunction, enabled: boolean) => {
    setNotice(null);
    void toggle.run(async () => {
      await setFunctionEnabled(appId, fn.name, enabled);
      setNotice(enabled ? `${fn.name} is enabled: it is called again.` : `${fn.name} is disabled: it is not called nor told of writes, and deliveries already due wait.`);
      functions.reload();
    });
  };

  const rotate = () =>
    void rotation.run(async () => {
      if (!rotating) return;
      const rotated = await rotateFunctionSecret(appId, rotating.name);
      setRotating(null);
      setSecret({ ...rotated, why: 'rotated' });
      functions.reload();
    });

  const remove = () =>
    void removal.run(async () => {
      if (!deleting) return;
      await deleteFunction(appId, deleting.name);
      setNotice(`Deleted ${deleting.name}, with its deliveries.`);
      if (chosen === deleting.name) showDeliveries(null);
      setDeleting(null);
      functions.reload();
    });

  return (
    <>
      <AppHeading app={functions.data} appId={appId} page="Functions" />
      <p className="lead">
        Functions are HTTP endpoints of your own that Tessera calls, each call signed with the function’s secret: BEFORE functions check or change a
        mutation’s input, EVENT functions are told of writes after they commit, RESOLVER functions answer fields the schema declares with
        @function. The secret is shown once, when it is generated.
      </p>
      <section aria-labelledby="functions-title">
        <h2 id="functions-title">Functions</h2>
        {functions.loading && !functions.data && <Loading label="Loading the functions…" />}
        <ErrorBox error={functions.error} title="Could not load the functions" />
        {notice && (
          <p className="success" role="status">
            {notice}
          </p>
        )}
        <ErrorBox error={toggle.error} title="Could not change the function" />
        {list && list.length === 0 && <p className="empty">No functions yet.</p>}
        {list && list.length > 0 && (
          <div className="table-wrap">
            <table className="table functions-table">
              <caption className="visually-hidden">The app’s functions, by order then name</caption>
              <thead>
                <tr>
                  {['Name', 'Kind', 'URL', 'Operations', 'Headers', 'Enabled', 'Order', 'Timeout'].map((h) => (
                    <th key={h} scope="col">
                      {h}
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((fn) => (
                  <tr key={fn.name} aria-current={shown?.name === fn.name ? 'true' : undefined}>
                    <th scope="row">{fn.name}</th>
                    <td>{fn.kind}</td>
                    <td className="function-url">
                      <code>{fn.url}</code>
                    </td>
                    <td>
                      {fn.operations.length === 0 ? (
                        <span className="null">—</span>
                      ) : (
                        fn.operations.map((o) => (
                          <Fragment key={o}>
                            <code className="operation">{o}</code>{' '}
                          </Fragment>
                        ))
                      )}
                    </td>
                    <td>{fn.headers.length === 0 ? <span className="null">—</span> : fn.headers.map((h) => h.name).join(', ')}</td>
                    <td>
                      <label className="checkbox switch">
                        <input
                          type="checkbox"
                          role="switch"
                          checked={fn.enabled}
                          disabled={toggle.busy}
                          onChange={(e) => setEnabled(fn, e.target.checked)}
                          aria-label={`${fn.name} enabled`}
                        />
                        {fn.enabled ? 'On' : 'Off'}
                      </label>
                    </td>
                    <td className="number">{fn.order}</td>
                    <td className="number">{fn.timeoutMs.toLocaleString()} ms</td>
                    <td className="cell-actions">
                      {fn.kind === 'EVENT' && (
                        <button
                          type="button"
                          className="button small"
                          aria-label={`Deliveries of ${fn.name}`}
                          aria-pressed={shown?.name === fn.name}
                          onClick={() => showDeliveries(shown?.name === fn.name ? null : fn.name)}
                        >
                          Deliveries
                        </button>
                      )}
                      <button type="button" className="button small" aria-label={`Rotate the secret of ${fn.name}`} onClick={() => setRotating(fn)}>
                        Rotate secret
                      </button>
                      <button
                        type="button"
                        className="button small danger"
                        aria-label={`Delete ${fn.name}`}
                        onClick={() => {
                          setNotice(null);
                          setDeleting(fn);
                        }}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {shown && <Deliveries key={shown.name} appId={appId} fn={shown} onClose={() => showDeliveries(null)} />}
      <ErrorBox error={apiSchema.error} title="Could not read the app’s mutations" />
      <FunctionForm
        appId={appId}
        mutations={mutations}
        onCreated={(created) => {
          setNotice(null);
          setSecret({ ...created, why: 'created' });
          functions.reload();
        }}
      />
      <Dialog title={`Function "${secret?.function.name ?? ''}" ${secret?.why ?? 'created'}`} open={secret !== null} onClose={() => setSecret(null)}>
        <p>
          {secret?.why === 'rotated' ? 'Calls are signed with this new secret from now on. ' : ''}Copy the signing secret now:{' '}
          <strong>it will not be shown again.</strong> Your endpoint checks each call’s <code>Tessera-Signature</code> header with it.
        </p>
        {secret && <CopyField value={secret.secret} label="Signing secret" />}
        <div className="dialog-actions">
          <button type="button" className="button primary" onClick={() => setSecret(null)} autoFocus>
            Done
          </button>
        </div>
      </Dialog>
      <ConfirmDialog
        open={rotating !== null}
        title={`Rotate the secret of ${rotating?.name ?? ''}?`}
        confirmLabel="Rotate secret"
        busy={rotation.busy}
        onConfirm={rotate}
        onClose={() => setRotating(null)}
      >
        <p>A new signing secret replaces the current one at once: calls signed with the old one stop, so update your endpoint right after.</p>
        <ErrorBox error={rotation.error} title="The secret was not rotated" />
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete function"
        busy={removal.busy}
        onConfirm={remove}
        onClose={() => setDeleting(null)}
      >
        <p>
          <strong>{deleting?.name}</strong> is no longer called, and its deliveries are deleted: events not yet delivered are dropped. This cannot be
          undone.
        </p>
        <ErrorBox error={removal.error} title="The function was not deleted" />
      </ConfirmDialog>
    </>
  );
}
