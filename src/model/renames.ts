// Checks `@renamed(from: "…")` on types and fields: the old name must be a valid name that no
// longer exists, and two renames cannot claim the same old name.

import type { ASTNode } from 'graphql';
import { nameProblem } from './names.js';
import type { Report } from './problems.js';

export interface Renamable {
  name: string;
  renamedFrom?: string;
}

/**
 * `items` are the types of the schema, or the fields of one type (`scope`: `Post`); `current`
 * the names that exist now in that namespace; `locate` the `from:` value of an item's @renamed.
 */
export function checkRenames(
  items: readonly Renamable[],
  current: ReadonlySet<string>,
  what: 'type' | 'field',
  scope: string | undefined,
  locate: (name: string) => ASTNode | undefined,
  report: Report,
) {
  const claimed = new Map<string, string>();
  for (const item of items) {
    const from = item.renamedFrom;
    if (from === undefined) continue;
    const label = scope ? `${scope}.${item.name}` : item.name;
    const at = locate(item.name);
    const problem = nameProblem(`@renamed(from:) on ${label}: the old name`, from);
    if (problem) report(problem, at);
    else if (from === item.name) report(`@renamed(from: "${from}") on ${label} names the ${what} itself; remove it`, at);
    else if (current.has(from)) {
      report(`@renamed(from: "${from}") on ${label}: a ${what} named ${from} still exists (remove a @renamed left from an earlier push)`, at);
    } else if (claimed.has(from)) report(`@renamed(from: "${from}") on ${label}: ${claimed.get(from)} is already renamed from ${from}`, at);
    claimed.set(from, label);
  }
}
