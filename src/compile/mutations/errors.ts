// Database refusals of a write turned into coded client errors: a unique value taken is a
// CONFLICT naming the field, a missing referenced object is BAD_USER_INPUT. Anything else
// stays internal.

import { badInput, conflict, isTesseraError } from '../../errors/index.js';
import { idColumn } from '../../model/index.js';
import { foreignKeyName, sqlState, uniqueIndexName, violatedConstraint } from '../../store/index.js';
import type { AppContext } from '../context.js';

export function writeError(app: AppContext, err: unknown): unknown {
  if (isTesseraError(err)) return err;
  const state = sqlState(err);
  const constraint = violatedConstraint(err);
  if (state === '23505') {
    for (const type of app.app.model.types) {
      for (const field of type.fields) {
        if (field.kind === 'value' && field.unique && uniqueIndexName(type.table, field.column) === constraint) {
          return conflict(`A ${type.name} with this ${field.name} already exists`, { type: type.name, field: field.name });
        }
        if (field.kind === 'relation' && !field.list && constraint === uniqueIndexName(type.table, idColumn(field.name))) {
          return conflict(`Another ${type.name} is already linked through ${field.name}`, { type: type.name, field: field.name });
        }
      }
    }
    for (const relation of app.app.model.relations) {
      if (relation.storage.kind === 'joinTable' && constraint?.startsWith(`${relation.storage.table}_`)) {
        return conflict(`These two objects are already connected through ${relation.name}`, { relation: relation.name });
      }
    }
    return conflict('A unique value is already taken');
  }
  if (state === '23503') {
    for (const type of app.app.model.types) {
      for (const field of type.fields) {
        if (field.kind === 'relation' && !field.list && constraint === foreignKeyName(type.table, idColumn(field.name))) {
          return badInput(`${type.name}.${idColumn(field.name)}: no ${field.target} has that id`, { field: idColumn(field.name) });
        }
      }
    }
    for (const relation of app.app.model.relations) {
      const storage = relation.storage;
      if (storage.kind !== 'joinTable') continue;
      const end = storage.columns.findIndex((column) => constraint === foreignKeyName(storage.table, column));
      if (end >= 0) return badInput(`${storage.columns[end]}: no ${storage.targets[end]} has that id`, { field: storage.columns[end] });
    }
    return badInput('A referenced object does not exist');
  }
  if (state === '23502') return badInput('A required field is missing or null');
  if (state === '23514') return badInput('A value is not one the field allows');
  return err;
}
