// Random valid app schemas (DESIGN §3): model types with scalar, enum, embedded and list fields,
// directives where they are allowed, relations of every kind (the built-in User included), join
// types, and open permission rules on some types so that anonymous callers reach them too.

import type { Choose } from './choose.js';

const TYPE_NAMES = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Kappa', 'Omega'];
const SCALARS = ['ID', 'String', 'Text', 'Int', 'Float', 'Boolean', 'DateTime', 'JSON'] as const;
/** Scalars that may carry `@index`/`@unique`, and `@default`. */
const INDEXABLE = new Set(['ID', 'String', 'Int', 'Float', 'Boolean', 'DateTime']);
const DEFAULTABLE = new Set(['String', 'Int', 'Float', 'Boolean', 'DateTime', 'JSON']);

export interface SchemaSpec {
  sdl: string;
  /** Model types the app declares (User included when it is extended). */
  types: string[];
  /** Types everyone may read and write. */
  open: string[];
}

interface FieldLine {
  name: string;
  line: string;
}

class TypeDraft {
  readonly fields: FieldLine[] = [];
  readonly used = new Set<string>(['id', 'createdAt', 'modifiedAt']);
  constructor(readonly name: string) {
    // The built-in fields of User cannot be declared again; nor their `<field>Id` inputs.
    if (name === 'User') for (const f of ['username', 'password', 'lastLogin', 'email', 'emailVerified', 'roles', 'rolesId']) this.used.add(f);
  }

  /** A field name unused in this type (and whose `<name>Id` is unused too, for relations). */
  fresh(c: Choose, prefix: string): string {
    for (;;) {
      const long = c.chance(0.1);
      const name = long ? c.name(`${prefix}_${'x'.repeat(c.int(30, 50))}`, 4) : c.name(prefix, 6);
      if (!this.used.has(name) && !this.used.has(`${name}Id`) && !(name.endsWith('Id') && this.used.has(name.slice(0, -2)))) {
        this.used.add(name);
        this.used.add(`${name}Id`);
        return name;
      }
    }
  }
}

function defaultLiteral(c: Choose, scalar: string, enumValues?: readonly string[]): string {
  if (enumValues) return c.pick(enumValues);
  switch (scalar) {
    case 'String':
      return JSON.stringify(c.pick(['', 'x', 'hello world', 'naïve ☃']));
    case 'Int':
      return String(c.int(-1000, 1000));
    case 'Float':
      return c.pick(['0', '1.5', '-2.25', '1e3']);
    case 'Boolean':
      return c.pick(['true', 'false']);
    case 'DateTime':
      return JSON.stringify(c.pick(['2017-01-01', '2016-12-08T12:33:56.000Z', '2020-02-29T23:59:59.999Z']));
    default:
      return c.pick(['{ a: 1, b: ["x", null] }', '[1, 2]', '"s"', '3', 'true']);
  }
}

/** A value field: scalar, enum, embedded value or a list of one, with the directives allowed on it. */
function valueField(c: Choose, draft: TypeDraft, enums: Map<string, string[]>, embedded: string[], inModel: boolean): FieldLine {
  const name = draft.fresh(c, 'f');
  const kind = c.int(0, 9);
  let base: string;
  let enumValues: string[] | undefined;
  if (kind < 7 || (enums.size === 0 && embedded.length === 0)) base = c.pick(SCALARS);
  else if (kind < 9 && enums.size > 0) {
    base = c.pick([...enums.keys()]);
    enumValues = enums.get(base);
  } else base = embedded.length > 0 ? c.pick(embedded) : 'String';
  const isEmbedded = embedded.includes(base);
  const list = c.chance(0.15);
  const required = c.chance(0.2);
  let type = list ? `[${base}]` : base;
  if (required) type += '!';
  const directives: string[] = [];
  const scalarLike = !list && !isEmbedded && (INDEXABLE.has(base) || enumValues !== undefined);
  if (inModel && scalarLike && c.chance(0.25)) directives.push(c.chance(0.4) ? '@unique' : '@index');
  if (!list && !isEmbedded && (DEFAULTABLE.has(base) || enumValues) && c.chance(0.2)) directives.push(`@default(value: ${defaultLiteral(c, base, enumValues)})`);
  return { name, line: `${name}: ${type}${directives.map((d) => ` ${d}`).join('')}` };
}

export function randomSchema(c: Choose): SchemaSpec {
  const lines: string[] = [];
  const enums = new Map<string, string[]>();
  for (let i = 0; i < c.int(0, 2); i++) {
    const values = [...new Set(Array.from({ length: c.int(1, 4) }, () => c.name('V', 3).toUpperCase()))];
    enums.set(`Mood${i}`, values);
    lines.push(`enum Mood${i} { ${values.join(' ')} }`);
  }
  const embedded: string[] = [];
  if (c.chance(0.4)) {
    const draft = new TypeDraft('Box');
    const fields = Array.from({ length: c.int(1, 3) }, () => valueField(c, draft, enums, [], false));
    // An embedded type may hold itself, but not through a required value.
    if (c.chance(0.3)) fields.push({ name: 'inner', line: 'inner: Box' });
    lines.push(`type Box { ${fields.map((f) => f.line).join('  ')} }`);
    embedded.push('Box');
  }

  const names = [...c.some(TYPE_NAMES, c.int(1, 4)), ...(c.chance(0.3) ? ['User'] : [])];
  const drafts = new Map(names.map((n) => [n, new TypeDraft(n)]));
  for (const draft of drafts.values()) {
    for (let i = 0; i < c.int(0, 5); i++) draft.fields.push(valueField(c, draft, enums, embedded, true));
  }

  const joins: string[] = [];
  for (let r = 0; r < c.int(0, 4); r++) {
    const relation = `Rel${r}`;
    const a = drafts.get(c.pick(names)) as TypeDraft;
    const b = drafts.get(c.pick(names)) as TypeDraft;
    const kind = c.pick(['oneToMany', 'oneToOne', 'manyToMany', 'selfManyToMany'] as const);
    const on = `@relation(name: "${relation}")`;
    if (kind === 'selfManyToMany') {
      a.fields.push({ name: '', line: `${a.fresh(c, 'self')}: [${a.name}] ${on}` });
    } else {
      const aList = kind === 'oneToMany' || kind === 'manyToMany';
      const bList = kind === 'manyToMany';
      a.fields.push({ name: '', line: `${a.fresh(c, 'to')}: ${aList ? `[${b.name}]` : b.name} ${on}` });
      b.fields.push({ name: '', line: `${b.fresh(c, 'from')}: ${bList ? `[${a.name}]` : a.name} ${on}` });
    }
    if ((kind === 'manyToMany' || kind === 'selfManyToMany') && c.chance(0.4)) {
      const draft = new TypeDraft(relation);
      joins.push(`type ${relation} @join(relation: "${relation}") { ${Array.from({ length: c.int(1, 2) }, () => valueField(c, draft, enums, embedded, false).line).join('  ')} }`);
    }
  }

  const open: string[] = [];
  for (const draft of drafts.values()) {
    let rules = '';
    if (draft.name !== 'User' && c.chance(0.5)) {
      open.push(draft.name);
      rules = ' @permission(scope: EVERYONE, read: true, create: true, update: true, delete: true)';
    }
    const body = draft.fields.length > 0 ? ` {\n  ${draft.fields.map((f) => f.line).join('\n  ')}\n}` : '';
    lines.push(`type ${draft.name} @model${rules}${body}`);
  }
  lines.push(...joins);
  return { sdl: lines.join('\n'), types: names, open };
}
