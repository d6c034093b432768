// Grants compiled into SQL predicates over a row alias, evaluated in the same statement as the
// query (or inside a mutation's transaction): `viewer` is the logged-in user's id as a bound
// parameter (NULL when anonymous). RELATION paths become nested EXISTS through any relation
// kind; members of the app's built-in `admin` role pass every rule. A statement compiled for a
// caller known not to be an app admin leaves that arm out (`appAdmin: 'excluded'`): `owner =
// viewer` alone is a predicate PostgreSQL can answer from an index, `owner = viewer OR <viewer
// is an app admin>` is not. Such a statement must check the caller aside (`viewerIsAppAdmin`)
// and be run again with the arm if the caller turns out to be an admin. A subscription's event
// statements count the grants (link rows, role memberships, roles) and the relation columns of
// the rows a path goes through as they stood when the event committed (`stood`).

import { builtinTraits, holdsLinks, membershipOf, relationLink } from '../model/index.js';
import type { AppModel, ModelType, PermissionOperation, RelationField } from '../model/index.js';
import { ident, join, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { typeGrants } from './grants.js';
import type { Grant } from './grants.js';

export interface RuleContext {
  model: AppModel;
  /** The table of a type or join relation, qualified by the app's schema. */
  table(name: string): SqlFragment;
  /** A fresh table alias. */
  alias(prefix: string): SqlFragment;
  /** The logged-in user's uuid as a parameter, NULL for an anonymous caller. */
  viewer: SqlFragment;
  /**
   * `checked` (the default): every predicate lets app admins through, checked in the statement.
   * `excluded`: the caller is taken not to be an app admin and the admin arm is left out; whoever
   * runs such a statement checks `viewerIsAppAdmin` in it and falls back to a `checked` one.
   */
  appAdmin?: 'checked' | 'excluded' | undefined;
  /** Told each time a predicate would let app admins through (checked or excluded): the statement depends on whether the caller is one. */
  asksAppAdmin?: (() => void) | undefined;
  /**
   * For rules read as they stood at an earlier moment (a subscription's event, as of its
   * commit): what counts of the rows a rule reads as they are now (see docs/realtime.md).
   */
  stood?: StoodAt | undefined;
}

/** The predicates a context reading rules as of an earlier moment adds to the rows its rules read. */
export interface StoodAt {
  /** The grant row `row` (a many-to-many link row, a membership of a role, the role with its name) stood then, as it is now. */
  grant(row: SqlFragment): SqlFragment;
  /**
   * The relation columns of `row`, a row of the app's own types that holds some (the post of
   * `post.author`, a user of `team.members`), pointed then where they point now: the row was
   * not made or linked since. Its other columns are read as they are.
   */
  links(row: SqlFragment): SqlFragment;
}

const FALSE = sql`FALSE`;
/** The predicate of a rule that lets everyone through; compare by identity to leave it out. */
export const ALWAYS = sql`TRUE`;

/** `predicate`, and where the context reads rules as of an earlier moment, that `row` stood then. */
function standing(c: RuleContext, row: SqlFragment, predicate: SqlFragment): SqlFragment {
  return c.stood ? sql`(${c.stood.grant(row)} AND ${predicate})` : predicate;
}

function typeOf(c: RuleContext, name: string): ModelType {
  const type = c.model.types.find((t) => t.name === name);
  if (!type) throw new Error(`unknown type ${name}`);
  return type;
}

function userRoles(c: RuleContext) {
  const m = membershipOf(c.model);
  return { table: c.table(m.table), user: ident(m.userColumn), role: ident(m.roleColumn), roles: c.table(m.roleTable), accessLevel: ident(m.accessLevel), adminRole: m.adminRole };
}

/** The viewer belongs to one of the named roles. */
function inRoles(c: RuleContext, roles: readonly string[]): SqlFragment {
  const ur = userRoles(c);
  const j = c.alias('ur');
  const r = c.alias('ro');
  const member = sql`${j}.${ur.user} = ${c.viewer}::uuid AND ${r}.name = ANY(${[...roles]}::text[])`;
  return sql`EXISTS (SELECT 1 FROM ${ur.table} ${j} JOIN ${ur.roles} ${r} ON ${r}.id = ${j}.${ur.role} WHERE ${standing(c, j, standing(c, r, member))})`;
}

/** The viewer is a member of the app's built-in `admin` role: full access (FALSE when the context excludes app admins). */
export function isAppAdmin(c: RuleContext): SqlFragment {
  c.asksAppAdmin?.();
  if (c.appAdmin === 'excluded') return FALSE;
  return viewerIsAppAdmin(c);
}

/** The viewer is a member of the app's built-in `admin` role, whatever the context says. */
export function viewerIsAppAdmin(c: RuleContext): SqlFragment {
  return inRoles(c, [userRoles(c).adminRole]);
}

/** The viewer is an admin member of the role `row`. */
function roleAdmin(c: RuleContext, row: SqlFragment): SqlFragment {
  const ur = userRoles(c);
  const j = c.alias('ur');
  return sql`EXISTS (SELECT 1 FROM ${ur.table} ${j} WHERE ${standing(c, j, sql`${j}.${ur.role} = ${row}.id AND ${j}.${ur.user} = ${c.viewer}::uuid AND ${j}.${ur.accessLevel} = 'admin'`)})`;
}

/** `row` is not one of the rows its built-in type reserves to app admins (the `admin` role). */
function notReserved(reserved: { field: string; value: string }, row: SqlFragment): SqlFragment {
  return sql`${row}.${ident(reserved.field)} <> ${reserved.value}`;
}

/**
 * Who may enrol, change and remove members of the role `row`: app admins; and, for any role
 * but the built-in `admin` role, its own admin members and whoever the app's Role `update`
 * rules name. (Leaving a role needs no permission; the caller checks that case.)
 */
export function manageMembersPredicate(c: RuleContext, row: SqlFragment): SqlFragment {
  const role = typeOf(c, membershipOf(c.model).roleType);
  const delegated = or([roleAdmin(c, row), ...typeGrants(role, 'update').map((g) => grantPredicate(c, role, row, g))]);
  const reserved = builtinTraits(role)?.reserved;
  return or([reserved ? sql`(${notReserved(reserved, row)} AND ${delegated})` : delegated, isAppAdmin(c)]);
}

/** A `userFields` path from `row` (of `type`) leads to the viewer. */
function pathToViewer(c: RuleContext, type: ModelType, row: SqlFragment, steps: readonly string[]): SqlFragment {
  const [step, ...rest] = steps;
  if (step === undefined) return sql`${row}.id = ${c.viewer}::uuid`;
  const field = type.fields.find((f): f is RelationField => f.kind === 'relation' && f.name === step);
  if (!field) throw new Error(`${type.name}.${step} is not a relation field`);
  const relation = c.model.relations.find((r) => r.name === field.relation);
  if (!relation) throw new Error(`unknown relation ${field.relation}`);
  const link = relationLink(relation, type.name, field);
  const target = typeOf(c, field.target);
  const last = rest.length === 0;
  switch (link.kind) {
    case 'holds':
      // The last step needs no join: the column holds the user's id.
      if (last) return sql`${row}.${ident(link.column)} = ${c.viewer}::uuid`;
      return nested(c, target, rest, (z) => sql`${z}.id = ${row}.${ident(link.column)}`);
    case 'heldBy':
      return nested(c, target, rest, (z) => sql`${z}.${ident(link.column)} = ${row}.id`);
    case 'join': {
      const j = c.alias('pj');
      const straight = (self: string, other: string) => {
        const far = sql`${j}.${ident(other)}`;
        const onward = last ? sql`${far} = ${c.viewer}::uuid` : nested(c, target, rest, (z) => sql`${z}.id = ${far}`);
        return sql`(${j}.${ident(self)} = ${row}.id AND ${onward})`;
      };
      const match = link.symmetric ? sql`(${straight(link.self, link.other)} OR ${straight(link.other, link.self)})` : straight(link.self, link.other);
      return sql`EXISTS (SELECT 1 FROM ${c.table(link.table)} ${j} WHERE ${standing(c, j, match)})`;
    }
    default: {
      const never: never = link;
      throw new Error(`unknown link ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A step of a path onto rows of `target`. Where the context reads rules as of an earlier moment,
 * a row whose relation columns the path may go on through counts only if they stood then.
 */
function nested(c: RuleContext, target: ModelType, rest: readonly string[], joinOn: (z: SqlFragment) => SqlFragment): SqlFragment {
  const z = c.alias('pr');
  const onward = pathToViewer(c, target, z, rest);
  const linked = c.stood && holdsLinks(c.model, target.name) ? sql` AND ${c.stood.links(z)}` : sql``;
  return sql`EXISTS (SELECT 1 FROM ${c.table(target.name)} ${z} WHERE ${joinOn(z)}${linked} AND ${onward})`;
}

function grantPredicate(c: RuleContext, type: ModelType, row: SqlFragment, grant: Grant): SqlFragment {
  switch (grant.scope) {
    case 'EVERYONE':
      return ALWAYS;
    case 'AUTHENTICATED':
      return sql`${c.viewer}::uuid IS NOT NULL`;
    case 'SELF':
      return sql`${row}.id = ${c.viewer}::uuid`;
    case 'RELATION':
      return or(grant.paths.map((path) => pathToViewer(c, type, row, path.split('.'))));
    case 'ROLE':
      return inRoles(c, grant.roles);
    default: {
      const never: never = grant;
      throw new Error(`unknown grant ${JSON.stringify(never)}`);
    }
  }
}

/** Items joined by OR; FALSE items (by identity) are left out. */
function or(all: readonly SqlFragment[]): SqlFragment {
  const items = all.filter((item) => item !== FALSE);
  if (items.length === 0) return FALSE;
  if (items.length === 1) return items[0] as SqlFragment;
  return sql`(${join(items, sql` OR `)})`;
}

/** The predicate "the viewer may `op` the row `row` of `type`": any grant, or app admin. */
export function grantsPredicate(c: RuleContext, type: ModelType, row: SqlFragment, grants: readonly Grant[]): SqlFragment {
  if (grants.some((g) => g.scope === 'EVERYONE')) return ALWAYS;
  return or([...grants.map((g) => grantPredicate(c, type, row, g)), isAppAdmin(c)]);
}

export function accessPredicate(c: RuleContext, type: ModelType, op: PermissionOperation, row: SqlFragment): SqlFragment {
  const grants = typeGrants(type, op);
  // Rules an app writes never reach a row its built-in type reserves (the built-in admin role):
  // renaming or deleting it would take the app's admins away, and a new role of that name
  // would make new ones.
  const reserved = builtinTraits(type)?.reserved;
  if (reserved && (op === 'update' || op === 'delete') && grants.length > 0) {
    const granted = grants.some((g) => g.scope === 'EVERYONE') ? ALWAYS : or(grants.map((g) => grantPredicate(c, type, row, g)));
    return or([sql`(${notReserved(reserved, row)} AND ${granted})`, isAppAdmin(c)]);
  }
  return grantsPredicate(c, type, row, grants);
}

/**
 * The predicate "the viewer may make a call these grants allow", where no row is involved (a
 * custom field of Query or Mutation): any grant, or app admin. Row scopes (SELF, RELATION)
 * never reach here: the model refuses them on such fields.
 */
export function callerPredicate(c: RuleContext, grants: readonly Grant[]): SqlFragment {
  if (grants.some((g) => g.scope === 'EVERYONE')) return ALWAYS;
  const held = grants.map((g): SqlFragment => {
    switch (g.scope) {
      case 'AUTHENTICATED':
        return sql`${c.viewer}::uuid IS NOT NULL`;
      case 'ROLE':
        return inRoles(c, g.roles);
      case 'EVERYONE':
      case 'SELF':
      case 'RELATION':
        return FALSE;
      default: {
        const never: never = g;
        throw new Error(`unknown grant ${JSON.stringify(never)}`);
      }
    }
  });
  return or([...held, isAppAdmin(c)]);
}
