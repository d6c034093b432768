// The state of one schema build: the model indexed by name, and every generated type built
// once under its name, so that types referring to each other share one instance.

import type { GraphQLNamedType } from 'graphql';
import { ApiNames } from '../model/index.js';
import type { AppModel, EmbeddedType, EnumType, ModelType, Relation, RelationField } from '../model/index.js';

export class TypeRegistry {
  readonly model: AppModel;
  /** Every generated name, from the one place that makes them. */
  readonly names: ApiNames;
  readonly #types = new Map<string, ModelType>();
  readonly #embedded = new Map<string, EmbeddedType>();
  readonly #enums = new Map<string, EnumType>();
  readonly #relations = new Map<string, Relation>();
  /** Built types by name, with the role they were built for. */
  readonly #built = new Map<string, { role: string; type: GraphQLNamedType }>();

  constructor(model: AppModel) {
    this.model = model;
    this.names = ApiNames.of(model);
    for (const t of model.types) this.#types.set(t.name, t);
    for (const e of model.embedded) this.#embedded.set(e.name, e);
    for (const e of model.enums) this.#enums.set(e.name, e);
    for (const r of model.relations) this.#relations.set(r.name, r);
  }

  /**
   * The type named `name`, built by `build` the first time. `role` says what the name was
   * generated for (`where:Post`); a second role asking for the same name means two parts of
   * the model need one name, which model validation should have refused.
   */
  named<T extends GraphQLNamedType>(name: string, role: string, build: () => T): T {
    const seen = this.#built.get(name);
    if (seen) {
      if (seen.role !== role) throw new Error(`Generated type name ${name} is needed for both ${seen.role} and ${role}`);
      // Same name, same role: the builder that made it returns the same class of type.
      return seen.type as T;
    }
    const type = build();
    this.#built.set(name, { role, type });
    return type;
  }

  modelType(name: string): ModelType {
    return found(this.#types.get(name), 'model type', name);
  }

  embeddedType(name: string): EmbeddedType {
    return found(this.#embedded.get(name), 'embedded type', name);
  }

  enumType(name: string): EnumType {
    return found(this.#enums.get(name), 'enum', name);
  }

  relation(name: string): Relation {
    return found(this.#relations.get(name), 'relation', name);
  }

  /** The many-to-many relation a list relation field goes through, if it is one. */
  manyToMany(field: RelationField): Relation | undefined {
    const relation = this.relation(field.relation);
    return isManyToMany(relation) ? relation : undefined;
  }
}

export function isManyToMany(relation: Relation): boolean {
  return relation.kind === 'manyToMany' || relation.kind === 'selfManyToMany';
}

function found<T>(value: T | undefined, what: string, name: string): T {
  if (value === undefined) throw new Error(`The model has no ${what} named ${name}`);
  return value;
}
