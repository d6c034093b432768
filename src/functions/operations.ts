// Which of an app's mutations a function can be attached to, by name: the row mutations of
// every @model type and the edge mutations of every many-to-many relation — the ones whose
// writes become events. Names come from the app's ApiNames, never built here.

import { ApiNames } from '../model/index.js';
import type { AppModel, EdgeVerb, RowVerb } from '../model/index.js';

export type EventOperation = { kind: 'row'; verb: RowVerb; type: string } | { kind: 'edge'; verb: EdgeVerb; relation: string };

const ROW_VERBS: readonly RowVerb[] = ['create', 'update', 'delete'];
const EDGE_VERBS: readonly EdgeVerb[] = ['addTo', 'update', 'removeFrom'];

/** The app's mutations that write rows or edges, by their names. */
export function eventOperations(model: AppModel): Map<string, EventOperation> {
  const names = ApiNames.of(model);
  const out = new Map<string, EventOperation>();
  for (const type of model.types) {
    for (const verb of ROW_VERBS) out.set(names.mutation(verb, type.name), { kind: 'row', verb, type: type.name });
  }
  for (const relation of model.relations) {
    if (relation.storage.kind !== 'joinTable') continue;
    for (const verb of EDGE_VERBS) out.set(names.edgeMutation(verb, relation.name), { kind: 'edge', verb, relation: relation.name });
  }
  return out;
}
