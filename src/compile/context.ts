// What the compiler knows about one app version: its model indexed for lookups, the names of
// its generated API, the GraphQL schema requests are validated against, and where its tables
// live. Root and payload fields are told apart by their role (graphql/roles.ts), not by name.

import type { GraphQLSchema } from 'graphql';
import { ApiNames, DEFAULT_SETTINGS, relationLink } from '../model/index.js';
import type { AppModel, AppSettings, CustomField, CustomRoot, EmbeddedType, Field, Link, ModelType, Relation, RelationField, ValueField } from '../model/index.js';
import { ident } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';

export interface AppVersion {
  id: string;
  version: number;
  model: AppModel;
  settings: AppSettings;
  schema: GraphQLSchema;
  /** How the statements sign File download URLs; absent: `url` reads null. */
  files?: FileUrlKeys | undefined;
}

/** What a statement needs to make a signed File download URL (files stage: FileUrlSigner). */
export interface FileUrlKeys {
  /** The server's public base URL (`https://api.example.com`). */
  base(): string;
  /** The signing key XORed with HMAC-SHA256's inner and outer pads, hex. */
  inner: string;
  outer: string;
  /** When a URL made now expires (unix seconds), for a lifetime in seconds. */
  expiry(lifetimeSeconds: number): number;
  /**
   * The name of the image variant a `url(transform:)` argument asks for, which its URL carries
   * and signs (files stage: variantName); BAD_USER_INPUT for a bad argument.
   */
  variant(transform: unknown): string;
}

export type { Link } from '../model/index.js';

export interface ModelIndex {
  types: Map<string, ModelType>;
  embedded: Map<string, EmbeddedType>;
  relations: Map<string, Relation>;
}

/**
 * The schema name a model's shared context compiles its statements with: no app's, and no
 * identifier of a model can hold it (`$` is not part of a GraphQL name).
 */
const SHARED_SCHEMA = 'tessera$model';
/** How a table of the shared context is named in a statement's text: `"tessera$model".`. */
export const SHARED_QUALIFIER = `"${SHARED_SCHEMA}".`;

/** A statement's text compiled in a model's shared context, as the app `appId` runs it. */
export function statementForApp(text: string, appId: string): string {
  return text.replaceAll(SHARED_QUALIFIER, `"${appSchemaName(appId)}".`);
}

export class AppContext {
  readonly index: ModelIndex;
  readonly dbSchema: string;
  /** The names of the app's generated API (`names.edge('Post')` → `PostEdge`). */
  readonly names: ApiNames;
  constructor(
    readonly app: AppVersion,
    dbSchema: string = appSchemaName(app.id),
  ) {
    this.index = indexModel(app.model);
    this.names = ApiNames.of(app.model);
    this.dbSchema = dbSchema;
  }

  /**
   * The context that every app of one model compiles its queries in, so that they share the
   * statements: its tables are named in a schema no app has, which binding a statement for a
   * request replaces with the request's app's (params.ts: bindPrepared); anything else of the app a statement needs (its id, its settings) is bound
   * from each request. It has no app id (`app.id` is the placeholder schema's name).
   */
  static shared(model: AppModel, schema: GraphQLSchema, files: FileUrlKeys | undefined): AppContext {
    return new AppContext({ id: SHARED_SCHEMA, version: 0, model, settings: DEFAULT_SETTINGS, schema, files }, SHARED_SCHEMA);
  }

  table(name: string): SqlFragment {
    return ident(this.dbSchema, name);
  }

  type(name: string): ModelType {
    const type = this.index.types.get(name);
    if (!type) throw new Error(`unknown type ${name}`);
    return type;
  }

  relation(name: string): Relation {
    const relation = this.index.relations.get(name);
    if (!relation) throw new Error(`unknown relation ${name}`);
    return relation;
  }

  /** The app's own field `name` of Query or Mutation. */
  customField(root: CustomRoot, name: string): CustomField {
    const field = this.app.model.customFields?.find((f) => f.root === root && f.name === name);
    if (!field) throw new Error(`unknown custom field ${root}.${name}`);
    return field;
  }

  embedded(name: string): EmbeddedType {
    const embedded = this.index.embedded.get(name);
    if (!embedded) throw new Error(`unknown embedded type ${name}`);
    return embedded;
  }

  /** How the relation field `field` of `type` reaches its target's rows. */
  link(type: ModelType, field: RelationField): Link {
    return relationLink(this.relation(field.relation), type.name, field);
  }
}

export function findField(type: ModelType, name: string): Field | undefined {
  return type.fields.find((f) => f.name === name);
}

export function valueFields(fields: readonly Field[]): ValueField[] {
  return fields.filter((f): f is ValueField => f.kind === 'value');
}

function indexModel(model: AppModel): ModelIndex {
  return {
    types: new Map(model.types.map((t) => [t.name, t])),
    embedded: new Map(model.embedded.map((e) => [e.name, e])),
    relations: new Map(model.relations.map((r) => [r.name, r])),
  };
}
