// How a relation field reaches the rows of its target: through a column of its own row, a
// column of the target's rows, or a join table. Shared by every stage that builds SQL.

import type { AppModel, Relation, RelationField } from './types.js';

export type Link =
  /** This type's row holds the other's id in `column` (many side, or owning one-to-one side). */
  | { kind: 'holds'; column: string }
  /** The target's rows hold this row's id in `column` (list side of one-to-many, or the other one-to-one side). */
  | { kind: 'heldBy'; column: string }
  /** A join table: this row's id in `self`, the target's in `other`; `symmetric` for a self relation seen from its own field. */
  | { kind: 'join'; relation: Relation; table: string; self: string; other: string; selfEnd: 0 | 1; symmetric: boolean };

/** The link of relation field `field` of type `typeName`, which belongs to `relation`. */
export function relationLink(relation: Relation, typeName: string, field: RelationField): Link {
  const storage = relation.storage;
  if (storage.kind === 'foreignKey') {
    const holder = relation.ends[0];
    return holder.type === typeName && holder.field === field.name
      ? { kind: 'holds', column: storage.column }
      : { kind: 'heldBy', column: storage.column };
  }
  const symmetric = relation.kind === 'selfManyToMany';
  const selfEnd: 0 | 1 = symmetric || (relation.ends[0].type === typeName && relation.ends[0].field === field.name) ? 0 : 1;
  const otherEnd = selfEnd === 0 ? 1 : 0;
  return { kind: 'join', relation, table: storage.table, self: storage.columns[selfEnd], other: storage.columns[otherEnd], selfEnd, symmetric };
}

/**
 * The column of a table holding a relation column (`holds`) that tells when the row was last
 * linked: the id of the transaction that made it or last pointed one of its relation columns at
 * a row (NULL: not since the column came). A subscription's event reads a row's relation
 * columns as they are at delivery, so it counts them only if that transaction had committed
 * by the event's (src/compile/subscription.ts).
 */
export const LINK_TIME_COLUMN = 'tessera$linked';

/** Whether the rows of `typeName` hold a relation column (and so a LINK_TIME_COLUMN). */
export function holdsLinks(model: AppModel, typeName: string): boolean {
  return model.relations.some((r) => r.storage.kind === 'foreignKey' && r.storage.table === typeName);
}
