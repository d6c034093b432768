// A File's `url` as SQL: the download path of the row with an expiry and an HMAC-SHA256
// signature computed in the statement itself, so it exists only in rows the statement's rules
// let the caller read. The key reaches the statement as bound parameters, never as text.

import { sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { ModelType } from '../model/index.js';
import { idSql } from './ids.js';
import type { CompileState } from './state.js';

/** `<base>/files/<appId>/<fileId>?expires=<unix s>&signature=<hex>` for the row `row` of `type`. */
export function fileUrl(s: CompileState, type: ModelType, row: SqlFragment): SqlFragment {
  const keys = s.app.app.files;
  if (!keys) return sql`NULL::text`;
  const appId = s.app.app.id;
  const base = s.binder.fromRequest(() => `${keys.base()}/files/${appId}/`);
  const expires = s.binder.fromRequest((r) => String(keys.expiry(r.settings.fileUrlLifetimeSeconds)));
  const inner = s.binder.fromRequest(() => keys.inner);
  const outer = s.binder.fromRequest(() => keys.outer);
  const message = sql`convert_to(${appId}::text || '/' || u.id || '/' || u.e, 'UTF8')`;
  const signature = sql`encode(sha256(decode(${outer}::text, 'hex') || sha256(decode(${inner}::text, 'hex') || ${message})), 'hex')`;
  return sql`(SELECT ${base}::text || u.id || '?expires=' || u.e || '&signature=' || ${signature} FROM (SELECT ${idSql(type.name, sql`${row}.id`)} AS id, ${expires}::text AS e) u)`;
}
