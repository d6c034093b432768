// A File's `url` as SQL: the download path of the row with an expiry and an HMAC-SHA256
// signature computed in the statement itself, so it exists only in rows the statement's rules
// let the caller read. The key reaches the statement as bound parameters, never as text. With
// `transform:` the URL names an image variant, and the variant is part of the signed text.

import { sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { ModelType } from '../model/index.js';
import { idSql } from './ids.js';
import { resolveDeep } from './params.js';
import type { CompileState } from './state.js';

/**
 * `<base>/files/<appId>/<fileId>?expires=<unix s>&signature=<hex>` for the row `row` of `type`;
 * with a `transform` argument (its value as read, variables unresolved),
 * `…/<fileId>?variant=<name>&expires=…&signature=…`.
 */
export function fileUrl(s: CompileState, type: ModelType, row: SqlFragment, transform?: unknown): SqlFragment {
  const keys = s.app.app.files;
  if (!keys) return sql`NULL::text`;
  // The request's app: one statement serves every app of a model.
  const appId = s.binder.fromRequest((r) => r.appId);
  const base = s.binder.fromRequest((r) => `${keys.base()}/files/${r.appId}/`);
  const expires = s.binder.fromRequest((r) => String(keys.expiry(r.settings.fileUrlLifetimeSeconds)));
  const inner = s.binder.fromRequest(() => keys.inner);
  const outer = s.binder.fromRequest(() => keys.outer);
  let signed = sql`${appId}::text || '/' || u.id || '/' || u.e`;
  let query = sql`'?expires='`;
  if (transform !== undefined && transform !== null) {
    // Named per request: one statement serves every value of the argument's variables.
    const variant = s.binder.fromRequest((r) => keys.variant(resolveDeep(transform, r)));
    signed = sql`${signed} || '/' || ${variant}::text`;
    query = sql`'?variant=' || ${variant}::text || '&expires='`;
  }
  const message = sql`convert_to(${signed}, 'UTF8')`;
  const signature = sql`encode(sha256(decode(${outer}::text, 'hex') || sha256(decode(${inner}::text, 'hex') || ${message})), 'hex')`;
  return sql`(SELECT ${base}::text || u.id || ${query} || u.e || '&signature=' || ${signature} FROM (SELECT ${idSql(type.name, sql`${row}.id`)} AS id, ${expires}::text AS e) u)`;
}
