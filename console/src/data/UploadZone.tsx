// The Upload control of a File type's table: files chosen or dropped are uploaded one after the
// other, each as its own create mutation carrying the file (a multipart request), with the
// progress of the one under way and the coded error of any the server refused.

import { useId, useState } from 'react';
import type { DragEvent } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import type { ModelInfo } from './model';
import { saveRow } from './rows';

interface Progress {
  name: string;
  sent: number;
  total: number;
}

export function UploadProgress({ progress }: { progress: Progress }) {
  const percent = progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <span className="upload-progress">
      <progress max={progress.total || 1} value={progress.sent} aria-label={`Uploading ${progress.name}`} /> {percent}%
    </span>
  );
}

export function UploadZone({ model, endpoint, token, onUploaded }: { model: ModelInfo; endpoint: string; token: string | null; onUploaded: () => void }) {
  const inputId = useId();
  const [dragging, setDragging] = useState(false);
  const [current, setCurrent] = useState<Progress | null>(null);
  const [message, setMessage] = useState('');
  const [failures, setFailures] = useState<{ name: string; error: unknown }[]>([]);
  const field = model.upload;
  if (!field) return null;

  const upload = async (files: File[]) => {
    if (files.length === 0 || current) return;
    const failed: { name: string; error: unknown }[] = [];
    let uploaded = 0;
    setFailures([]);
    setMessage('');
    for (const file of files) {
      setCurrent({ name: file.name, sent: 0, total: file.size });
      try {
        await saveRow(endpoint, token, model, 'create', { [field]: null }, [{ path: `input.${field}`, file }], (sent, total) => setCurrent({ name: file.name, sent, total }));
        uploaded += 1;
      } catch (error) {
        failed.push({ name: file.name, error });
      }
    }
    setCurrent(null);
    setFailures(failed);
    setMessage(uploaded === 0 ? '' : `Uploaded ${uploaded} file${uploaded === 1 ? '' : 's'}.`);
    if (uploaded > 0) onUploaded();
  };

  const takes = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  return (
    <div
      className={`upload-zone${dragging ? ' dragging' : ''}`}
      aria-busy={current !== null}
      onDragOver={(event) => {
        if (!takes(event)) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        if (!takes(event)) return;
        event.preventDefault();
        setDragging(false);
        void upload([...event.dataTransfer.files]);
      }}
    >
      <input
        id={inputId}
        type="file"
        multiple
        className="visually-hidden upload-input"
        disabled={current !== null}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = '';
          void upload(files);
        }}
      />
      <label htmlFor={inputId} className="button primary">
        Upload files…
      </label>
      <span className="hint">or drop files here: each becomes a new {model.name}.</span>
      {current && <UploadProgress progress={current} />}
      <span role="status" className="upload-status">
        {current ? `Uploading ${current.name}…` : message}
      </span>
      {failures.map((f, i) => (
        <ErrorBox key={i} error={f.error} title={`Could not upload ${f.name}`} />
      ))}
    </div>
  );
}
