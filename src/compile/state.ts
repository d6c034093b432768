// The state one compilation carries: the app, the request binder, the document's fragments,
// whether the app's permission rules apply, and a counter that gives every table reference of
// the statement its own alias.

import type { FragmentDefinitionNode } from 'graphql';
import type { ModelType, PermissionOperation } from '../model/index.js';
import { ALWAYS, accessPredicate, callerPredicate, fieldGrants, grantsPredicate, manageMembersPredicate, viewerIsAppAdmin } from '../permissions/index.js';
import type { Grant, RuleContext, StoodAt } from '../permissions/index.js';
import { ident, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { AppContext } from './context.js';
import type { Binder } from './params.js';

/** The predicate that filters nothing (the same one a rule for everyone compiles to); callers
 * leave it out of their WHERE clauses. */
export const TRUE = ALWAYS;

/** Who the statement is for: an admin token bypasses the rules; anyone else is bound by them. */
export type Access = 'admin' | 'rules';

export class CompileState {
  #aliases = 0;
  constructor(
    readonly app: AppContext,
    readonly binder: Binder,
    readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>,
    readonly access: Access = 'admin',
    /** The caller's user id in the statement's SQL (NULL when anonymous): by default the
     * request's `userId` as a parameter; a subscription's event statement, run for many
     * subscribers at once, names a column of the joined subscribers instead. */
    readonly viewer: SqlFragment = binder.fromRequest((r) => r.userId ?? null),
    /** Under the rules: `excluded` compiles the statement for a caller taken not to be an app
     * admin (no admin arm in its predicates; see permissions/predicate.ts), `checked` lets app
     * admins through in the statement itself. */
    readonly appAdmin: 'checked' | 'excluded' = 'checked',
    /** For a subscription's event statements, whose rules count grants and the relation columns
     * of the rows a path goes through as they stood when the event committed (RuleContext.stood). */
    readonly stood?: StoodAt,
  ) {}

  /** The predicate "the caller is a member of the app's built-in `admin` role" (FALSE for an admin token, which needs no role). */
  callerIsAppAdmin(): SqlFragment {
    if (this.access === 'admin') return sql`FALSE`;
    return viewerIsAppAdmin(this.#rules());
  }

  /**
   * The predicate "the caller may `op` the row `row` of `type`", folded into the statement
   * wherever rows are read: TRUE for an admin token, the compiled rules otherwise.
   */
  allowed(type: ModelType, op: PermissionOperation, row: SqlFragment): SqlFragment {
    if (this.access === 'admin') return TRUE;
    return accessPredicate(this.#rules(), type, op, row);
  }

  /**
   * The predicate for `op` on a field with rules of its own (undefined when the field follows
   * its type's rules, or for an admin token). Reading it also needs read access to the row,
   * which the row's own predicate already ensures.
   */
  fieldAllowed(type: ModelType, field: string, op: PermissionOperation, row: SqlFragment): SqlFragment | undefined {
    if (this.access === 'admin') return undefined;
    const grants = fieldGrants(type, field, op);
    if (grants === undefined) return undefined;
    return grantsPredicate(this.#rules(), type, row, grants);
  }

  /** The predicate "the caller may manage the members of the role `row`" (TRUE for an admin token). */
  managesMembers(row: SqlFragment): SqlFragment {
    if (this.access === 'admin') return TRUE;
    return manageMembersPredicate(this.#rules(), row);
  }

  /** The predicate "the caller may make a call these grants allow" (a custom field; TRUE for an admin token). */
  callerAllowed(grants: readonly Grant[]): SqlFragment {
    if (this.access === 'admin') return TRUE;
    return callerPredicate(this.#rules(), grants);
  }

  /** How many predicates compiled so far would let app admins through (the statement's answer then depends on whether the caller is one). */
  appAdminArms = 0;

  /** Set once a field answer may carry a refusal marker (see forbiddenMarker). */
  refusals = false;

  #rules(): RuleContext {
    return {
      model: this.app.app.model,
      table: (name) => this.app.table(name),
      alias: (prefix) => this.alias(prefix),
      viewer: this.viewer,
      appAdmin: this.appAdmin,
      stood: this.stood,
      asksAppAdmin: () => {
        this.appAdminArms += 1;
      },
    };
  }

  /** A fresh table alias (`t1`, `t2`, …). */
  alias(prefix = 't'): SqlFragment {
    this.#aliases += 1;
    return ident(`${prefix}${this.#aliases}`);
  }
}
