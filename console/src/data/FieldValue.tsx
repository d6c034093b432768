// A field's value as the tables show it: a dash for null, instants as <time>, JSON and embedded
// values as compact code, long text cut (the whole value in the tooltip).

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function FieldValue({ value, max = 80 }: { value: unknown; max?: number }) {
  if (value === null || value === undefined) return <span className="null">—</span>;
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return <time dateTime={value} title={value}>{value.slice(0, 19).replace('T', ' ')}</time>;
  if (typeof value === 'object') {
    const json = JSON.stringify(value);
    return <code className="json" title={json.length > max ? json : undefined}>{truncate(json, max)}</code>;
  }
  const text = String(value);
  return text.length > max ? <span title={text}>{truncate(text, max)}</span> : <>{text}</>;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
