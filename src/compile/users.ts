// Reads of the built-in User that sit outside a query: the stored password hash a token is
// checked against.

import { USER } from '../model/index.js';
import { sql } from '../sql/index.js';
import type { Store } from '../store/index.js';
import type { AppContext } from './context.js';

/** The stored password hash of the user with this row uuid; undefined when there is none. */
export async function storedPassword(store: Store, app: AppContext, userId: string): Promise<string | undefined> {
  const { rows } = await store.query<{ password: string }>(sql`SELECT password FROM ${app.table(USER)} WHERE id = ${userId}::uuid`);
  return rows[0]?.password;
}
