// Embedded types may contain each other, even recursively, but not through a chain of
// required single values: such a value could never be written.

import type { FieldDefinitionNode } from 'graphql';
import type { Report } from './problems.js';
import type { EmbeddedType } from './types.js';

export function checkEmbeddedCycles(embedded: readonly EmbeddedType[], fieldNodes: ReadonlyMap<string, ReadonlyMap<string, FieldDefinitionNode>>, report: Report) {
  const byName = new Map(embedded.map((e) => [e.name, e]));
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (done.has(name)) return;
    const type = byName.get(name);
    if (!type) return;
    for (const field of type.fields) {
      if (field.type.kind !== 'embedded' || field.list || !field.required) continue;
      const step = `${name}.${field.name}`;
      const loop = path.findIndex((p) => p.startsWith(`${field.type.name}.`));
      if (field.type.name === name || loop >= 0) {
        const cycle = [...path.slice(loop >= 0 ? loop : path.length), step].join(' → ');
        report(`Embedded type ${field.type.name} contains itself through required fields (${cycle}): make one of them optional or a list`, fieldNodes.get(name)?.get(field.name)?.type);
        continue;
      }
      visit(field.type.name, [...path, step]);
    }
    done.add(name);
  };
  for (const e of embedded) visit(e.name, []);
}
