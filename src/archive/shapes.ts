// The shape each record kind must have: its fields and their JSON types, checked as a record is
// read so that what the importer gets is what the types say (values are checked by the store).

type Shape = Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array' | 'string?' | 'number?' | 'object?'>;

const SHAPES: Readonly<Record<string, Shape>> = {
  header: { format: 'string', version: 'number', tessera: 'string', exportedAt: 'string', app: 'object', store: 'string' },
  schema: { version: 'number', sdl: 'string' },
  settings: { settings: 'object' },
  table: { name: 'string', of: 'string', columns: 'array' },
  totpFactor: { userId: 'string', secret: 'string', createdAt: 'string', confirmedAt: 'string?', lastStep: 'number?', recoveryCodes: 'array' },
  oidcIdentity: { issuer: 'string', subject: 'string', userId: 'string', createdAt: 'string', lastLoginAt: 'string?' },
  oidcProvider: { name: 'string', issuer: 'string', clientId: 'string', sealedSecret: 'string', scopes: 'array', metadata: 'object', createdAt: 'string' },
  trustedDocuments: { enforce: 'boolean', documents: 'array' },
  function: { name: 'string', functionKind: 'string', url: 'string', operations: 'array', order: 'number', enabled: 'boolean', timeoutMs: 'number', sealedSecret: 'string', headers: 'array', createdAt: 'string' },
  file: { id: 'string', size: 'number', sha256: 'string' },
  fileChunk: { id: 'string', data: 'string' },
  end: { lines: 'number', rows: 'object', sha256: 'string' },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function stringsOnly(list: unknown, what: string): string | undefined {
  return Array.isArray(list) && list.every((x) => typeof x === 'string') ? undefined : `${what} must hold strings only`;
}

/** What is wrong with a record's fields, or undefined when its shape is right. */
export function shapeProblem(record: Record<string, unknown>): string | undefined {
  const shape = SHAPES[String(record.kind)];
  if (!shape) return 'unknown kind';
  for (const [field, want] of Object.entries(shape)) {
    const optional = want.endsWith('?');
    const type = optional ? want.slice(0, -1) : want;
    const got = typeOf(record[field]);
    if (got === type || (optional && got === 'null')) continue;
    return `"${field}" must be ${optional ? `${type} or null` : type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`}, not ${got === 'undefined' ? 'missing' : got}`;
  }
  switch (record.kind) {
    case 'table':
      if (record.of !== 'type' && record.of !== 'relation') return '"of" must be "type" or "relation"';
      return stringsOnly(record.columns, '"columns"');
    case 'oidcProvider':
      return stringsOnly(record.scopes, '"scopes"');
    case 'trustedDocuments':
      return stringsOnly(record.documents, '"documents"');
    case 'totpFactor': {
      const codes = record.recoveryCodes as unknown[];
      const bad = codes.some((c) => typeOf(c) !== 'object' || typeof (c as { codeHash?: unknown }).codeHash !== 'string');
      return bad ? '"recoveryCodes" must hold { codeHash, usedAt } objects' : undefined;
    }
    case 'function': {
      const headers = record.headers as unknown[];
      const bad = headers.some((h) => typeOf(h) !== 'object' || typeof (h as { name?: unknown }).name !== 'string' || typeof (h as { sealedValue?: unknown }).sealedValue !== 'string');
      return bad ? '"headers" must hold { name, sealedValue } objects' : stringsOnly(record.operations, '"operations"');
    }
    case 'file':
      if (!UUID.test(String(record.id))) return '"id" must be a lower-case uuid';
      if (!Number.isSafeInteger(record.size) || (record.size as number) < 0) return '"size" must be a whole number of bytes';
      return /^[0-9a-f]{64}$/.test(String(record.sha256)) ? undefined : '"sha256" must be 64 lower-case hex digits';
    case 'fileChunk':
      return BASE64.test(String(record.data)) ? undefined : '"data" must be base64';
    case 'end': {
      const counts = Object.values(record.rows as Record<string, unknown>);
      return counts.every((n) => Number.isInteger(n)) ? undefined : '"rows" must map table names to counts';
    }
    default:
      return undefined;
  }
}
