// One setting's control on the settings page, chosen by the setting's kind: a checkbox, a list
// with the choice of following the server, a number with its unit written out, or a text that
// may be left empty for its default. Each shows the server's description and any refusal.

import type { SettingInfo } from '../api/settings';
import type { Draft } from './drafts';

/** How the page presents a setting it knows; any other setting gets its name as the label. */
export interface Presentation {
  label: string;
  unit?: 'seconds' | 'milliseconds';
  /** For a text: several lines (a mail's text). */
  multiline?: boolean;
  /** For a nullable text: what an empty field stands for ("the server's TESSERA_MAIL_FROM"). */
  defaultText?: string;
  /** A sentence shown beside the field, for what its description cannot say. */
  note?: string;
  placeholder?: string;
  /** For a text: shown in a fixed-width font (a URL). */
  mono?: boolean;
}

export function SettingControl(props: {
  info: SettingInfo;
  presentation: Presentation;
  draft: Draft;
  changed: boolean;
  refused: string | undefined;
  onChange: (draft: Partial<Draft>) => void;
}) {
  const { info, presentation, draft, changed, refused, onChange } = props;
  const { label, unit } = presentation;
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
  if (info.kind === 'text' && info.nullable) return <DefaultableText {...props} />;
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
    case 'text':
    case 'integer':
    case 'number': {
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

/**
 * A text setting whose null means "the default": an empty field is null, and "Use the default"
 * empties it. Mail settings are this kind (the server's SMTP URL and sender, the built-in texts).
 */
function DefaultableText(props: Parameters<typeof SettingControl>[0]) {
  const { info, presentation, draft, changed, refused, onChange } = props;
  const id = `setting-${info.name}`;
  const describedBy = [refused ? `${id}-error` : '', presentation.note ? `${id}-note` : '', `${id}-default`, `${id}-hint`].filter(Boolean).join(' ');
  const common = {
    id,
    value: draft.text,
    placeholder: presentation.placeholder,
    onChange: (e: { target: { value: string } }) => onChange({ text: e.target.value, none: e.target.value === '' }),
    'aria-describedby': describedBy,
    'aria-invalid': refused ? true : undefined,
    spellCheck: false,
  };
  return (
    <div className="setting setting-text">
      <div className="row">
        <label htmlFor={id}>{presentation.label}</label>
        {changed && <span className="badge">changed</span>}
        {draft.none && <span className="badge subtle">default</span>}
      </div>
      <div className="setting-text-control">
        {presentation.multiline ? <textarea {...common} rows={7} /> : <input {...common} type="text" autoComplete="off" className={presentation.mono ? 'mono' : undefined} />}
        {!draft.none && (
          <button type="button" className="button small" aria-label={`Use the default for ${presentation.label}`} onClick={() => onChange({ text: '', none: true })}>
            Use the default
          </button>
        )}
      </div>
      {presentation.note && (
        <p id={`${id}-note`} className="hint setting-note">
          {presentation.note}
        </p>
      )}
      <p id={`${id}-default`} className="hint">
        {draft.none ? 'Empty: ' : 'Leave empty for '}
        {presentation.defaultText ?? 'the default'}.
      </p>
      {refused && (
        <p id={`${id}-error`} className="field-error">
          {refused}
        </p>
      )}
      <p id={`${id}-hint`} className="hint">
        <code>{info.name}</code> · {info.description}
      </p>
    </div>
  );
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
