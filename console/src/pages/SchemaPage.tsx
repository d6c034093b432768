// The schema of an app: an SDL editor checked as you type (problems marked at their line), a
// preview of the migration plan, applying it, an outline of the live schema and its history.

import { useEffect, useMemo, useRef, useState } from 'react';
import { getApp, migrateSchema } from '../api/admin';
import type { AppDetail, MigrateResult } from '../api/admin';
import { ApiError, asApiError } from '../api/graphql';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAsync } from '../components/useAsync';
import { SchemaOutlineView } from '../schema/SchemaOutlineView';
import { SdlEditor } from '../schema/SdlEditor';
import type { SchemaProblem, SdlEditorHandle } from '../schema/SdlEditor';
import { AppHeading, NoSuchApp } from './AppHeading';

const CHECK_DELAY_MS = 500;

export function SchemaPage({ appId }: { appId: string }) {
  const app = useAsync(() => getApp(appId), [appId]);
  if (app.loading && !app.data) return <Loading label="Loading the schema…" />;
  if (app.error) return <ErrorBox error={app.error} title="Could not load the app" />;
  if (!app.data) return <NoSuchApp appId={appId} />;
  return <SchemaWorkspace app={app.data} reload={app.reload} />;
}

type Check =
  | { state: 'idle' }
  | { state: 'checking' }
  | { state: 'valid'; result: MigrateResult; sdl: string }
  | { state: 'invalid'; problems: SchemaProblem[] }
  | { state: 'failed'; error: ApiError };

function SchemaWorkspace({ app, reload }: { app: AppDetail; reload: () => void }) {
  const [draft, setDraft] = useState(app.schema);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const [preview, setPreview] = useState<{ result: MigrateResult; sdl: string } | null>(null);
  const [allowDestructive, setAllowDestructive] = useState(false);
  const [applying, setApplying] = useState(false);
  const [applyError, setApplyError] = useState<unknown>(null);
  const [applied, setApplied] = useState<MigrateResult | null>(null);
  const editor = useRef<SdlEditorHandle>(null);
  const generation = useRef(0);

  // The live schema changed (after apply): the editor starts from it again.
  useEffect(() => setDraft(app.schema), [app.schema]);

  const runCheck = async (sdl: string): Promise<Check> => {
    const id = ++generation.current;
    setCheck({ state: 'checking' });
    let next: Check;
    try {
      next = { state: 'valid', result: await migrateSchema(app.id, sdl, { dryRun: true }), sdl };
    } catch (err) {
      const api = asApiError(err);
      const problems = api.errors.flatMap((e) => (e.extensions?.code === 'SCHEMA_INVALID' ? ((e.extensions.problems as SchemaProblem[] | undefined) ?? []) : []));
      next = api.code === 'SCHEMA_INVALID' ? { state: 'invalid', problems } : { state: 'failed', error: api };
    }
    if (id === generation.current) setCheck(next);
    return next;
  };

  // Checked as you type, a moment after the last key.
  useEffect(() => {
    const timer = window.setTimeout(() => void runCheck(draft), CHECK_DELAY_MS);
    return () => window.clearTimeout(timer);
    // runCheck reads the current app itself.
  }, [draft, app.id]);

  const onPreview = async () => {
    setApplied(null);
    setApplyError(null);
    const result = await runCheck(draft);
    setPreview(result.state === 'valid' ? { result: result.result, sdl: result.sdl } : null);
    setAllowDestructive(false);
  };

  const onApply = async () => {
    if (!preview) return;
    setApplying(true);
    setApplyError(null);
    try {
      const result = await migrateSchema(app.id, preview.sdl, { dryRun: false, allowDestructive });
      setApplied(result);
      setPreview(null);
      reload();
    } catch (err) {
      setApplyError(err);
    } finally {
      setApplying(false);
    }
  };

  const problems = check.state === 'invalid' ? check.problems : NO_PROBLEMS;
  const stale = preview !== null && preview.sdl !== draft;
  const destructive = preview?.result.plan.filter((s) => s.destructive).length ?? 0;
  const changed = draft !== app.schema;

  return (
    <>
      <AppHeading app={app} appId={app.id} page="Schema" />
      <div className="schema-layout">
        <section className="schema-editor-pane" aria-labelledby="editor-title">
          <div className="pane-head">
            <h2 id="editor-title">Schema (SDL)</h2>
            <CheckStatus check={check} />
          </div>
          <SdlEditor ref={editor} value={draft} onChange={setDraft} problems={problems} label="App schema (SDL)" onSubmit={() => void onPreview()} />
          <p className="hint">
            Ctrl+Enter previews. In the editor, Tab indents; press Ctrl+M (⌃⇧M on a Mac) to make Tab move focus instead.
          </p>
          {problems.length > 0 && (
            <div className="problems" role="region" aria-label="Schema problems">
              <h3>
                {problems.length} problem{problems.length === 1 ? '' : 's'}
              </h3>
              <ul>
                {problems.map((p, i) => (
                  <li key={i}>
                    <button type="button" className="link-button" onClick={() => editor.current?.goTo(p.line, p.column)}>
                      Line {p.line}, column {p.column}
                    </button>
                    : {p.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {check.state === 'failed' && <ErrorBox error={check.error} title="Could not check the schema" />}
          <div className="actions">
            <button type="button" className="button primary" onClick={() => void onPreview()} disabled={check.state === 'invalid'}>
              Preview changes
            </button>
            <button type="button" className="button" onClick={() => setDraft(app.schema)} disabled={!changed}>
              Reset to live schema
            </button>
          </div>
        </section>
        <section className="schema-side-pane" aria-labelledby="plan-title">
          <h2 id="plan-title">Migration plan</h2>
          {applied && (
            <p className="success" role="status">
              Applied: the app is now at schema version {applied.version} ({applied.plan.length} step{applied.plan.length === 1 ? '' : 's'}).
            </p>
          )}
          {!preview && !applied && <p className="empty">Edit the schema, then press “Preview changes” to see what applying it would do.</p>}
          {preview && (
            <PlanView
              preview={preview.result}
              stale={stale}
              destructive={destructive}
              allowDestructive={allowDestructive}
              setAllowDestructive={setAllowDestructive}
              applying={applying}
              onApply={() => void onApply()}
            />
          )}
          <ErrorBox error={applyError} title="The schema was not applied" />
        </section>
      </div>
      <SchemaOutlineView sdl={app.schema} version={app.schemaVersion} />
      <HistoryView app={app} />
    </>
  );
}

const NO_PROBLEMS: SchemaProblem[] = [];

function CheckStatus({ check }: { check: Check }) {
  const text =
    check.state === 'checking'
      ? 'Checking…'
      : check.state === 'valid'
        ? 'Valid schema'
        : check.state === 'invalid'
          ? `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'}`
          : check.state === 'failed'
            ? 'Check failed'
            : '';
  return (
    <span className={`check-status ${check.state}`} role="status" aria-live="polite">
      {text}
    </span>
  );
}

function PlanView(props: {
  preview: MigrateResult;
  stale: boolean;
  destructive: number;
  allowDestructive: boolean;
  setAllowDestructive: (v: boolean) => void;
  applying: boolean;
  onApply: () => void;
}) {
  const { preview, stale, destructive } = props;
  if (preview.plan.length === 0 && !stale) {
    return <p className="empty">No changes: the schema is the live one (version {preview.version}).</p>;
  }
  return (
    <div className="plan">
      {stale && (
        <p className="warning" role="status">
          The schema changed since this preview: preview again before applying.
        </p>
      )}
      <p>
        Applying creates schema version <strong>{preview.version}</strong> with {preview.plan.length} step{preview.plan.length === 1 ? '' : 's'}
        {destructive > 0 && (
          <>
            , <strong className="destructive-text">{destructive} destructive</strong>
          </>
        )}
        :
      </p>
      <ol className="plan-steps">
        {preview.plan.map((step, i) => (
          <li key={i} className={step.destructive ? 'step destructive' : 'step'}>
            {step.destructive && <span className="badge danger">Destructive</span>}
            <code className="step-kind">{step.kind}</code> {step.description}
          </li>
        ))}
      </ol>
      {destructive > 0 && (
        <label className="checkbox danger-zone">
          <input type="checkbox" checked={props.allowDestructive} onChange={(e) => props.setAllowDestructive(e.target.checked)} />
          Apply the destructive steps: the data they drop is lost.
        </label>
      )}
      <button
        type="button"
        className={destructive > 0 ? 'button danger' : 'button primary'}
        onClick={props.onApply}
        disabled={stale || props.applying || (destructive > 0 && !props.allowDestructive)}
      >
        {props.applying ? 'Applying…' : `Apply version ${preview.version}`}
      </button>
    </div>
  );
}

function HistoryView({ app }: { app: AppDetail }) {
  const history = useMemo(() => [...app.history].reverse(), [app.history]);
  return (
    <section aria-labelledby="history-title" className="card">
      <h2 id="history-title">Version history</h2>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Applied</th>
              <th scope="col">Steps</th>
            </tr>
          </thead>
          <tbody>
            {history.map((v) => (
              <tr key={v.version}>
                <td>
                  {v.version}
                  {v.version === app.schemaVersion && <span className="badge">live</span>}
                </td>
                <td>
                  <time dateTime={v.appliedAt}>{new Date(v.appliedAt).toLocaleString()}</time>
                </td>
                <td>{v.steps}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
