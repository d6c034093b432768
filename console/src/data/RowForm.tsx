// The form to create or edit one object, generated from the type's Create/Update input:
// a control per field suited to its type, relation ids chosen from the related objects.

import { useId, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import type { UploadPart } from '../api/graphql';
import type { AppModel, InputFieldInfo, ModelInfo } from './model';
import { RelationPicker } from './RelationPicker';
import { saveRow, uploadValue } from './rows';
import type { Row } from './rows';
import { UploadProgress } from './UploadZone';
import { useAction } from '../components/useAsync';

type Values = Record<string, string>;

function initialValue(field: InputFieldInfo, row: Row | undefined): string {
  if (!row) return '';
  const value = field.widget === 'relation' ? (row[field.name.slice(0, -2)] as { id?: string } | null | undefined)?.id : row[field.name];
  if (value === null || value === undefined) return '';
  if (field.widget === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

/** The label of the object a relation field of `row` points to (the table reads it with the row). */
function relatedLabel(field: InputFieldInfo, row: Row | undefined, appModel: AppModel): string | undefined {
  if (!row || field.widget !== 'relation' || !field.target) return undefined;
  const related = row[field.name.slice(0, -2)] as Record<string, unknown> | null | undefined;
  const label = appModel.byName.get(field.target)?.labelField;
  const text = label ? related?.[label] : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** The text of a control as the value the API wants; `undefined` leaves the field out. */
function toValue(field: InputFieldInfo, text: string, mode: 'create' | 'update'): unknown {
  if (text === '') {
    if (mode === 'create') return undefined;
    return field.widget === 'relation' ? '' : null; // `<relation>Id: ""` removes the association
  }
  switch (field.widget) {
    case 'integer':
      return Number.parseInt(text, 10);
    case 'number':
      return Number.parseFloat(text);
    case 'boolean':
      return text === 'true';
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(`${field.name}: not valid JSON`);
      }
    default:
      return text;
  }
}

export function RowForm(props: {
  appModel: AppModel;
  model: ModelInfo;
  mode: 'create' | 'update';
  row?: Row | undefined;
  endpoint: string;
  token: string | null;
  onSaved: (id: string) => void;
  onCancel: () => void;
}) {
  const { model, mode, row } = props;
  const fields = (mode === 'create' ? model.create?.fields : model.update?.fields) ?? [];
  const [values, setValues] = useState<Values>(() => Object.fromEntries(fields.map((f) => [f.name, initialValue(f, row)])));
  const [dirty, setDirty] = useState<Set<string>>(new Set());
  const [files, setFiles] = useState<Record<string, File[]>>({});
  const [progress, setProgress] = useState<{ name: string; sent: number; total: number } | null>(null);
  const { busy, error, run } = useAction();
  const formId = useId();

  const set = (name: string, value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    setDirty((d) => new Set(d).add(name));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const input: Record<string, unknown> = mode === 'update' && row ? { id: row.id } : {};
      const parts: UploadPart[] = [];
      for (const field of fields) {
        if (field.widget === 'upload') {
          const upload = uploadValue(field, files[field.name] ?? []);
          if (upload) {
            input[field.name] = upload.value;
            parts.push(...upload.parts);
          }
          continue;
        }
        if (mode === 'update' && !dirty.has(field.name)) continue;
        const value = toValue(field, values[field.name] ?? '', mode);
        if (value !== undefined) input[field.name] = value;
      }
      const name = parts.map((p) => p.file.name).join(', ');
      try {
        const id = await saveRow(props.endpoint, props.token, model, mode, input, parts, (sent, total) => setProgress({ name, sent, total }));
        props.onSaved(id);
      } finally {
        setProgress(null);
      }
    });
  };

  return (
    <form onSubmit={submit} className="row-form" aria-label={`${mode === 'create' ? 'New' : 'Edit'} ${model.name}`}>
      {mode === 'update' && row && (
        <p className="hint">
          Id <code>{row.id}</code>. Only the fields you change are sent.
        </p>
      )}
      <div className="form-grid">
        {fields.map((field) => (
          <FieldControl
            key={field.name}
            id={`${formId}-${field.name}`}
            field={field}
            value={values[field.name] ?? ''}
            initialLabel={relatedLabel(field, row, props.appModel)}
            onChange={(v) => set(field.name, v)}
            onFiles={(chosen) => setFiles((f) => ({ ...f, [field.name]: chosen }))}
            {...props}
          />
        ))}
      </div>
      {progress && <UploadProgress progress={progress} />}
      <ErrorBox error={error} title={mode === 'create' ? `Could not create the ${model.name}` : `Could not save the ${model.name}`} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : mode === 'create' ? `Create ${model.name}` : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

function FieldControl(props: {
  id: string;
  field: InputFieldInfo;
  value: string;
  /** For a relation: the label of the object it points to when the form opened. */
  initialLabel?: string | undefined;
  onChange: (value: string) => void;
  /** For an upload: the files chosen. */
  onFiles: (files: File[]) => void;
  appModel: AppModel;
  endpoint: string;
  token: string | null;
}) {
  const { id, field, value, onChange } = props;
  const label = (
    <label htmlFor={id}>
      {field.name}
      <span className="field-type-hint">
        {' '}
        {field.widget === 'relation' ? `${field.target ?? ''} object` : field.upload ? `${field.upload.list ? 'files' : 'a file'} to upload` : field.type}
        {field.required ? ' (required)' : ''}
      </span>
    </label>
  );
  const common = { id, value, required: field.required, onChange: (e: { target: { value: string } }) => onChange(e.target.value) };
  switch (field.widget) {
    case 'textarea':
      return (
        <div className="field wide">
          {label}
          <textarea rows={3} {...common} />
        </div>
      );
    case 'json':
      return (
        <div className="field wide">
          {label}
          <textarea rows={3} className="mono" placeholder="JSON, e.g. [] or {}" {...common} />
        </div>
      );
    case 'boolean':
      return (
        <div className="field">
          {label}
          <select {...common}>
            <option value="">{field.required ? 'choose…' : '(null)'}</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        </div>
      );
    case 'enum':
      return (
        <div className="field">
          {label}
          <select {...common}>
            <option value="">{field.required ? 'choose…' : '(null)'}</option>
            {field.enumValues?.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </div>
      );
    case 'integer':
      return (
        <div className="field">
          {label}
          <input type="number" step={1} {...common} />
        </div>
      );
    case 'number':
      return (
        <div className="field">
          {label}
          <input type="number" step="any" {...common} />
        </div>
      );
    case 'password':
      return (
        <div className="field">
          {label}
          <input type="password" autoComplete="new-password" {...common} />
        </div>
      );
    case 'relation':
      return <RelationControl {...props} label={label} />;
    case 'upload':
      return (
        <div className="field">
          {label}
          <input type="file" id={id} multiple={field.upload?.list ?? false} required={field.required} onChange={(e) => props.onFiles([...(e.target.files ?? [])])} />
        </div>
      );
    case 'text':
      return (
        <div className="field">
          {label}
          <input type="text" placeholder={field.type === 'DateTime' ? '2024-01-31T12:00:00.000Z' : undefined} {...common} />
        </div>
      );
    default: {
      const never: never = field.widget;
      return never;
    }
  }
}

/** A relation: the related object, searched for on the server among all of its type. */
function RelationControl(props: Parameters<typeof FieldControl>[0] & { label: ReactNode }) {
  const { id, field, value, onChange, appModel } = props;
  const target = field.target ? appModel.byName.get(field.target) : undefined;
  if (!target) {
    return (
      <div className="field">
        {props.label}
        <input type="text" id={id} value={value} required={field.required} onChange={(e) => onChange(e.target.value)} />
      </div>
    );
  }
  return (
    <div className="field">
      {props.label}
      <RelationPicker
        id={id}
        name={field.name}
        target={target}
        endpoint={props.endpoint}
        token={props.token}
        value={value}
        initialLabel={props.initialLabel}
        required={field.required}
        onChange={onChange}
      />
    </div>
  );
}
