// The permissions stage's public face: which rules apply to an operation on a type or field,
// and their compilation into SQL predicates over a row.

export { customFieldGrants, fieldGrants, hasFieldRules, typeGrants } from './grants.js';
export type { Grant } from './grants.js';
export { ALWAYS, accessPredicate, callerPredicate, grantsPredicate, isAppAdmin, manageMembersPredicate, viewerIsAppAdmin } from './predicate.js';
export type { RuleContext, StoodAt } from './predicate.js';
