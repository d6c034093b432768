// The File type's own fields as the data browser shows them: the size in bytes/KiB/MiB, the
// SHA-256 shortened, and the signed url as a Download link, with a thumbnail for images only
// (anything else is never rendered inline).

import type { Column } from './model';
import type { Row } from './rows';

/** The fields of a File (docs/files.md) shown here rather than as plain values. */
const FILE_FIELDS = new Set(['size', 'sha256', 'url']);

export function isFileField(name: string): boolean {
  return FILE_FIELDS.has(name);
}

/** A File's columns with its url (the preview and download) right after its id, where the table shows it without scrolling. */
export function fileColumns(columns: readonly Column[]): Column[] {
  const url = columns.find((c) => c.name === 'url');
  const rest = columns.filter((c) => c !== url);
  if (url) rest.splice(rest.findIndex((c) => c.name === 'id') + 1, 0, url);
  return rest;
}

const UNITS = ['KiB', 'MiB', 'GiB'];

/** 512 bytes, 1.5 KiB, 20.0 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${UNITS[unit] ?? ''}`;
}

/**
 * The signed url on the console's own origin. The console is served by the server that signed
 * it, and the signature covers the app, file and expiry, not the host: on its own origin the
 * console's Content-Security-Policy (`img-src 'self'`) lets the preview load, and the
 * `download` attribute (same-origin links only) names the saved file, whatever public URL the
 * server is configured with.
 */
export function consoleUrlOf(url: string): string {
  const parsed = new URL(url, window.location.href);
  const path = /\/files\/[^/]+\/[^/]+$/.exec(parsed.pathname)?.[0];
  return path ? `${path}${parsed.search}` : url;
}

export function FileField({ field, row }: { field: string; row: Row }) {
  const value = row[field];
  const name = typeof row.name === 'string' ? row.name : row.id;
  if (field === 'size' && typeof value === 'number') {
    return <span className="file-size" title={`${value} bytes`}>{formatBytes(value)}</span>;
  }
  if (field === 'sha256' && typeof value === 'string') {
    return (
      <code className="hash" title={value}>
        {value.slice(0, 12)}…
      </code>
    );
  }
  if (field === 'url' && typeof value === 'string') {
    const href = consoleUrlOf(value);
    const image = typeof row.contentType === 'string' && row.contentType.startsWith('image/');
    return (
      <span className="file-links">
        {image && <img className="file-thumb" src={href} alt={`Preview of ${name}`} />}
        <a className="button small" href={href} download={name} aria-label={`Download ${name}`}>
          Download
        </a>
      </span>
    );
  }
  return <span className="null">—</span>;
}
