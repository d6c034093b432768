// An app's settings: token lifetime, page sizes, request limits, introspection, allowed origins.
// The list of settings and their descriptions come from the server; this page only groups and
// labels the ones it knows. Saving sends the changed settings alone (updateApp); the server
// checks them and a refusal is shown with its code, at the field it names.

import { useEffect, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { asApiError } from '../api/graphql';
import { loadAppSettings, loadSettingInfo, updateAppSettings } from '../api/settings';
import type { AppSettingsView, SettingInfo, SettingValue } from '../api/settings';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAction, useAsync } from '../components/useAsync';
import { AppHeading, NoSuchApp } from './AppHeading';

/** How the page groups and labels the settings it knows; any other setting goes under "Other settings". */
interface Presentation {
  label: string;
  unit?: 'seconds' | 'milliseconds';
}

interface Group {
  title: string;
  hint?: string;
  settings: Readonly<Record<string, Presentation>>;
}

const GROUPS: readonly Group[] = [
  { title: 'User tokens', settings: { tokenLifetimeSeconds: { label: 'Token lifetime', unit: 'seconds' } } },
  {
    title: 'Pages',
    hint: 'How many objects a connection returns when a query gives no first or last, and the most it may ask for.',
    settings: { defaultPageSize: { label: 'Default page size' }, maxPageSize: { label: 'Maximum page size' } },
  },
  {
    title: 'Request limits',
    hint: 'Queries beyond a limit are refused with LIMIT_EXCEEDED before they run.',
    settings: {
      maxDepth: { label: 'Query depth' },
      maxAliases: { label: 'Aliases' },
      maxDirectives: { label: 'Directives' },
      maxTokens: { label: 'Tokens per document' },
      maxCost: { label: 'Cost' },
      statementTimeoutMs: { label: 'Statement timeout', unit: 'milliseconds' },
    },
  },
  {
    title: 'Introspection and error messages',
    settings: { introspection: { label: 'Answer introspection queries' }, fieldSuggestions: { label: 'Suggest similar field names in errors' } },
  },
  { title: 'Cross-origin requests (CORS)', settings: { corsOrigins: { label: 'Allowed origins' } } },
];

/** A setting as its control holds it: text for numbers and lists, whether null is chosen. */
interface Draft {
  text: string;
  /** For a nullable list: null, i.e. follow the server. */
  none: boolean;
}

function draftOf(info: SettingInfo, value: SettingValue | undefined): Draft {
  if (value === null || value === undefined) return { text: '', none: true };
  if (Array.isArray(value)) return { text: value.join('\n'), none: false };
  return { text: String(value), none: false };
}

/** The value to send for a control's text. Text that is not a number goes as it is: the server says what is wrong with it. */
function valueOf(info: SettingInfo, draft: Draft): SettingValue {
  if (info.nullable && draft.none) return null;
  switch (info.kind) {
    case 'integer':
    case 'number': {
      const text = draft.text.trim();
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    }
    case 'boolean':
      return draft.text === 'true';
    case 'list':
      return draft.text
        .split(/[\n,]/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
    case 'text':
      return draft.text;
    default: {
      const never: never = info.kind;
      return never;
    }
  }
}

const same = (a: SettingValue | undefined, b: SettingValue | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function SettingsPage({ appId }: { appId: string }) {
  const info = useAsync(loadSettingInfo, []);
  const names = useMemo(() => info.data?.map((s) => s.name) ?? [], [info.data]);
  const app = useAsync(async () => (names.length > 0 ? loadAppSettings(appId, names) : null), [appId, names]);

  if ((info.loading && !info.data) || (app.loading && !app.data)) return <Loading label="Loading the settings…" />;
  if (info.error || app.error) return <ErrorBox error={info.error ?? app.error} title="Could not load the settings" />;
  if (!app.data || !info.data) return <NoSuchApp appId={appId} />;
  return <SettingsForm key={app.data.id} appId={appId} infos={info.data} initial={app.data} />;
}

function SettingsForm({ appId, infos, initial }: { appId: string; infos: SettingInfo[]; initial: AppSettingsView }) {
  const [saved, setSaved] = useState(initial.settings);
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() => Object.fromEntries(infos.map((i) => [i.name, draftOf(i, initial.settings[i.name])])));
  const [result, setResult] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const names = infos.map((i) => i.name);
  const byName = new Map(infos.map((i) => [i.name, i]));
  const changed = infos.filter((i) => !same(valueOf(i, drafts[i.name] ?? { text: '', none: true }), saved[i.name]));
  const refused = error ? asApiError(error).errors[0]?.extensions?.setting : undefined;

  // A refused setting takes the focus, so a keyboard user lands on what to fix.
  useEffect(() => {
    if (typeof refused === 'string') document.getElementById(`setting-${refused}`)?.focus();
  }, [error]);

  const set = (name: string, draft: Partial<Draft>) => {
    setResult(null);
    setDrafts((d) => ({ ...d, [name]: { text: '', none: false, ...d[name], ...draft } }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const patch = Object.fromEntries(changed.map((i) => [i.name, valueOf(i, drafts[i.name] ?? { text: '', none: true })]));
      const updated = await updateAppSettings(appId, patch, names);
      setSaved(updated.settings);
      setDrafts(Object.fromEntries(infos.map((i) => [i.name, draftOf(i, updated.settings[i.name])])));
      setResult(`Saved ${changed.length} setting${changed.length === 1 ? '' : 's'}: ${changed.map((i) => i.name).join(', ')}. They apply from the next request.`);
    });
  };

  const discard = () => {
    setResult(null);
    setDrafts(Object.fromEntries(infos.map((i) => [i.name, draftOf(i, saved[i.name])])));
  };

  const known = new Set(GROUPS.flatMap((g) => Object.keys(g.settings)));
  const others = infos.filter((i) => !known.has(i.name));
  const groups: Group[] = [...GROUPS, ...(others.length > 0 ? [{ title: 'Other settings', settings: Object.fromEntries(others.map((i) => [i.name, { label: i.name }])) }] : [])];

  return (
    <>
      <AppHeading app={initial} appId={appId} page="Settings" />
      <p className="lead">
        Limits and behaviour of this app's API. Only the settings you change are sent; they apply from the next request, on every instance of
        the server.
      </p>
      <form className="settings-form" onSubmit={submit} aria-label="App settings">
        {groups.map((group) => {
          const members = Object.entries(group.settings).flatMap(([name, presentation]) => {
            const setting = byName.get(name);
            return setting ? [{ setting, presentation }] : [];
          });
          if (members.length === 0) return null;
          return (
            <fieldset key={group.title} className="card settings-group">
              <legend>{group.title}</legend>
              {group.hint && <p className="hint">{group.hint}</p>}
              {members.map(({ setting, presentation }) => (
                <SettingControl
                  key={setting.name}
                  info={setting}
                  label={presentation.label}
                  unit={presentation.unit}
                  draft={drafts[setting.name] ?? { text: '', none: true }}
                  changed={changed.includes(setting)}
                  refused={refused === setting.name ? asApiError(error).errors[0]?.message : undefined}
                  onChange={(draft) => set(setting.name, draft)}
                />
              ))}
            </fieldset>
          );
        })}
        <div className="save-bar">
          <button type="submit" className="button primary" disabled={busy || changed.length === 0}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
          <button type="button" className="button" onClick={discard} disabled={busy || changed.length === 0}>
            Discard changes
          </button>
          <span className="hint" role="status" aria-live="polite">
            {changed.length > 0 ? `${changed.length} unsaved change${changed.length === 1 ? '' : 's'}` : ''}
          </span>
        </div>
        <ErrorBox error={error} title="The settings were not saved" />
        {result && (
          <p className="success" role="status">
            {result}
          </p>
        )}
      </form>
    </>
  );
}

function SettingControl(props: {
  info: SettingInfo;
  label: string;
  unit: 'seconds' | 'milliseconds' | undefined;
  draft: Draft;
  changed: boolean;
  refused: string | undefined;
  onChange: (draft: Partial<Draft>) => void;
}) {
  const { info, label, unit, draft, changed, refused, onChange } = props;
  const id = `setting-${info.name}`;
  const describedBy = `${refused ? `${id}-error ` : ''}${id}-hint`;
  const badge = changed ? <span className="badge">changed</span> : null;
  const problem = refused ? (
    <p id={`${id}-error`} className="field-error">
      {refused}
    </p>
  ) : null;
  const hint = (
    <p id={`${id}-hint`} className="hint">
      <code>{info.name}</code> · {info.description}
    </p>
  );
  switch (info.kind) {
    case 'boolean':
      return (
        <div className="setting">
          <div className="row">
            <label className="checkbox" htmlFor={id}>
              <input
                id={id}
                type="checkbox"
                checked={draft.text === 'true'}
                onChange={(e) => onChange({ text: String(e.target.checked) })}
                aria-describedby={describedBy}
                aria-invalid={refused ? true : undefined}
              />
              {label}
            </label>
            {badge}
          </div>
          {problem}
          {hint}
        </div>
      );
    case 'list':
      return (
        <div className="setting">
          <fieldset className="setting-choice">
            <legend>
              {label} {badge}
            </legend>
            {info.nullable && (
              <label className="radio">
                <input type="radio" name={id} checked={draft.none} onChange={() => onChange({ none: true })} aria-describedby={`${id}-hint`} />
                <span>
                  Follow the server's list (<code>TESSERA_CORS_ORIGINS</code>)
                </span>
              </label>
            )}
            <label className="radio">
              <input type="radio" name={id} checked={!draft.none} onChange={() => onChange({ none: false })} />
              This app's own list
            </label>
            {!draft.none && (
              <>
                <label htmlFor={id} className="visually-hidden">
                  {label}, one per line
                </label>
                <textarea
                  id={id}
                  className="mono"
                  rows={4}
                  value={draft.text}
                  onChange={(e) => onChange({ text: e.target.value })}
                  placeholder={'https://app.example.com\nhttp://localhost:3000'}
                  aria-describedby={`${describedBy} ${id}-format`}
                  aria-invalid={refused ? true : undefined}
                />
                <p id={`${id}-format`} className="hint">
                  One origin per line: scheme, host and port, no path (<code>https://app.example.com</code>), or <code>*</code> for any. An empty
                  list allows no other origin: only pages of this server (such as this console) can call the API.
                </p>
              </>
            )}
          </fieldset>
          {problem}
          {hint}
        </div>
      );
    case 'integer':
    case 'number':
    case 'text': {
      const numeric = info.kind !== 'text';
      const amount = Number(draft.text);
      const readable = unit && draft.text.trim() !== '' && Number.isFinite(amount) ? `${unit} (${durationText(unit === 'seconds' ? amount * 1000 : amount)})` : (unit ?? '');
      return (
        <div className="setting setting-inline">
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type={numeric ? 'number' : 'text'}
            step={info.kind === 'integer' ? 1 : 'any'}
            inputMode={numeric ? 'numeric' : undefined}
            required={!info.nullable}
            value={draft.text}
            onChange={(e) => onChange({ text: e.target.value, none: false })}
            aria-describedby={describedBy}
            aria-invalid={refused ? true : undefined}
          />
          <span className="unit">
            {readable} {badge}
          </span>
          {problem}
          {hint}
        </div>
      );
    }
    default: {
      const never: never = info.kind;
      return never;
    }
  }
}

/** A duration for people: "15 days", "1 hour 30 minutes", "2.5 seconds". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [size, name] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${name}${count === 1 ? '' : 's'}`);
    rest -= count * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
