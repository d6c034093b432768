// The names an app declares against the names of its generated API: a declared name may not be
// one of the API's fixed names (`Query`, `PageInfo`, …) nor the name of another declared part.
// Every other name the API needs is made up by apiNames.ts, which never lets two collide.

import type { ASTNode } from 'graphql';
import { API_TYPE_NAMES } from './apiNames.js';
import type { Report } from './problems.js';
import type { AppModel } from './types.js';

/** A name the app declares, and what declares it. */
export interface DeclaredName {
  name: string;
  source: 'type' | 'embedded' | 'enum' | 'relation';
}

const OWN_KIND: Record<DeclaredName['source'], string> = { type: 'Type name', embedded: 'Type name', enum: 'Enum name', relation: 'Relation name' };

function describe(entry: DeclaredName): string {
  switch (entry.source) {
    case 'type':
      return `type ${entry.name}`;
    case 'embedded':
      return `embedded type ${entry.name}`;
    case 'enum':
      return `enum ${entry.name}`;
    case 'relation':
      return `relation ${entry.name}`;
    default: {
      const unreachable: never = entry.source;
      return unreachable;
    }
  }
}

/** The names the app's parts give the API's types: types, embedded types, enums, many-to-many relations (their join type). */
export function declaredNames(model: AppModel): DeclaredName[] {
  return [
    ...model.types.map((t) => ({ name: t.name, source: 'type' as const })),
    ...model.embedded.map((e) => ({ name: e.name, source: 'embedded' as const })),
    ...model.enums.map((e) => ({ name: e.name, source: 'enum' as const })),
    ...model.relations.filter((r) => r.kind === 'manyToMany' || r.kind === 'selfManyToMany').map((r) => ({ name: r.name, source: 'relation' as const })),
  ];
}

/** Reports each declared name that is an API fixed name or already another declared part's. */
export function checkNameClashes(model: AppModel, locate: (entry: DeclaredName) => ASTNode | undefined, report: Report) {
  const fixed = new Set(API_TYPE_NAMES);
  const own = new Map<string, DeclaredName>();
  for (const entry of declaredNames(model)) {
    const twin = own.get(entry.name);
    if (fixed.has(entry.name)) {
      report(`${OWN_KIND[entry.source]} ${entry.name} is reserved by the generated API`, locate(entry));
    } else if (twin) {
      const why = entry.source === 'relation' ? ': a many-to-many relation gives its name to its join type' : '';
      report(`${OWN_KIND[entry.source]} ${entry.name} is already the name of ${describe(twin)}${why}`, locate(entry) ?? locate(twin));
    }
    if (!twin) own.set(entry.name, entry);
  }
}
