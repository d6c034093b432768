// `tessera init [DIR]`: what a new project starts from — a schema to edit (a small to-do app with
// users and rules) and a `.env` that `tessera` reads from the working directory — then says what
// to run next. Existing files are never overwritten.

import { access, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';

export const STARTER_SCHEMA = `# Your app's schema: types, fields, relations and who may do what.
# The schema language: docs/schema-language.md in the Tessera repository.

type User @model {
  displayName: String
  lists: [List] @relation(name: "ListOwner")
}

# Lists and their items belong to their owner; only the owner reads and changes them.
type List @model
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["owner"], read: true, update: true, delete: true) {
  title: String!
  owner: User @relation(name: "ListOwner")
  items: [Item] @relation(name: "ListItems")
}

type Item @model
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["list.owner"], read: true, update: true, delete: true) {
  text: String!
  done: Boolean! @default(value: false)
  list: List @relation(name: "ListItems")
}
`;

export const STARTER_ENV = `# Read by \`tessera\` from the working directory; variables set in the environment win.
# Every setting: docs/configuration.md in the Tessera repository.
TESSERA_PORT=4000
TESSERA_DATA_DIR=.tessera
# Browser apps on other origins that may call the API (comma-separated, or *):
TESSERA_CORS_ORIGINS=http://localhost:3000
# PostgreSQL instead of the embedded store (tessera serve):
# DATABASE_URL=postgres://user:password@localhost:5432/tessera
`;

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description('start a project: a schema to edit (schema.graphql) and settings (.env)')
    .argument('[dir]', 'where to write them (default: the working directory)')
    .addHelpText('after', '\nExample:\n  tessera init my-app && cd my-app && tessera dev')
    .action(async (dir: string | undefined) => {
      const target = resolve(io.cwd, dir ?? '.');
      const files = { 'schema.graphql': STARTER_SCHEMA, '.env': STARTER_ENV };
      const taken = [];
      for (const name of Object.keys(files)) if (await exists(join(target, name))) taken.push(name);
      if (taken.length > 0) throw new CliError(`${taken.join(' and ')} already exist${taken.length === 1 ? 's' : ''} in ${target}; nothing written`);
      await mkdir(target, { recursive: true });
      for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text, { flag: 'wx' });
      io.stdout(
        [
          `wrote ${join(target, 'schema.graphql')} and ${join(target, '.env')}`,
          'next:',
          ...(dir ? [`  cd ${dir}`] : []),
          '  tessera dev                                   # a server on the embedded store',
          '  tessera app create todo --schema schema.graphql',
          '',
        ].join('\n'),
      );
    });
}
