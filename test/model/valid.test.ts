// Golden tests for valid schemas: each `fixtures/valid/<case>.graphql` parses, and its model is
// written to `<case>.model.json` (regenerate with `vitest -u`); the demo app's schema parses too.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/model/index.js';

const dir = join(import.meta.dirname, 'fixtures/valid');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => f.replace(/\.graphql$/, ''))
  .sort();

describe('valid schemas (golden)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
  });

  it.each(cases)('%s', async (name) => {
    const model = parseSchema(readFileSync(join(dir, `${name}.graphql`), 'utf8'));
    await expect(`${JSON.stringify(model, null, 2)}\n`).toMatchFileSnapshot(join(dir, `${name}.model.json`));
  });

  it('parses the demo app in examples/blog', async () => {
    const sdl = readFileSync(join(import.meta.dirname, '../../examples/blog/schema.graphql'), 'utf8');
    const model = parseSchema(sdl);
    expect(model.types.map((t) => t.name)).toEqual(['City', 'Comment', 'Country', 'File', 'Post', 'Role', 'User']);
    expect(model.relations.map((r) => `${r.name}:${r.kind}`)).toEqual([
      'CommentAuthor:oneToMany',
      'CountryCapital:oneToOne',
      'FileOwner:oneToMany',
      'Friendship:selfManyToMany',
      'PostAuthor:oneToMany',
      'PostComments:oneToMany',
      'PostPlace:oneToMany',
      'UserEdits:manyToMany',
      'UserHometown:oneToMany',
      'UserRoles:manyToMany',
    ]);
    expect(model.embedded.map((e) => e.name)).toEqual(['Image']);
    expect(model.enums.map((e) => e.name)).toEqual(['AccessLevel', 'FriendshipStatus', 'PostStatus']);
  });

  it('gives the same model for the same schema, JSON round trip included', () => {
    const sdl = readFileSync(join(dir, 'relations.graphql'), 'utf8');
    const model = parseSchema(sdl);
    expect(parseSchema(sdl)).toEqual(model);
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });
});
