// `tessera documents push APP FILE`: sets an app's trusted documents from a file — a JSON array
// of document texts, a JSON object of them (Relay's persisted-query output), Apollo's
// persisted-query manifest, or a `.graphql` file whose operations become one document each
// (with the fragments each one uses).

import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { Kind, parse, print, visit } from 'graphql';
import type { DefinitionNode, FragmentDefinitionNode } from 'graphql';
import { adminRequest } from '../client.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const SET = `mutation SetTrusted($input: SetTrustedDocumentsInput!) { setTrustedDocuments(input: $input) { count } }`;

/** Each operation of a `.graphql` file as a document of its own, with the fragments it spreads. */
export function operationsOf(sdl: string): string[] {
  const document = parse(sdl);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const needed = (node: DefinitionNode, into: Set<string>) =>
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = fragments.get(name);
        if (!into.has(name) && fragment) {
          into.add(name);
          needed(fragment, into);
        }
      },
    });
  return document.definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => {
      const used = new Set<string>();
      needed(operation, used);
      return [operation, ...[...used].sort().map((name) => fragments.get(name) as FragmentDefinitionNode)].map((d) => print(d)).join('\n\n');
    });
}

/** The document texts of a file in any of the accepted forms. */
export function documentsOf(file: string, text: string): string[] {
  if (file.endsWith('.graphql') || file.endsWith('.gql')) return operationsOf(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${file}: neither a .graphql file nor JSON`);
  }
  if (Array.isArray(json) && json.every((d) => typeof d === 'string')) return json;
  if (json !== null && typeof json === 'object') {
    const manifest = json as { format?: unknown; operations?: unknown };
    if (manifest.format === 'apollo-persisted-query-manifest' && Array.isArray(manifest.operations)) {
      return manifest.operations.map((o: { body?: unknown }) => {
        if (typeof o.body !== 'string') throw new CliError(`${file}: an operation of the manifest has no body`);
        return o.body;
      });
    }
    const values = Object.values(json);
    if (values.every((d) => typeof d === 'string')) return values as string[];
  }
  throw new CliError(`${file}: expected a JSON array of documents, an object of them, or an Apollo persisted-query manifest`);
}

export function registerDocumentCommands(program: Command, io: CliIo): void {
  const documents = program.command('documents').description("manage an app's trusted documents");
  withConnectionOptions(
    documents
      .command('push')
      .description("replace an app's trusted documents with those of FILE")
      .argument('<app>', 'app id or name')
      .argument('<file>', 'a JSON array of documents, Relay or Apollo persisted-query output, or a .graphql file of operations')
      .option('--enforce', 'run these documents only: any other is refused (the platform key excepted)'),
  )
    .addHelpText('after', '\nExamples:\n  tessera documents push blog operations.graphql --enforce\n  tessera documents push blog persisted-queries.json')
    .action(async (app: string, file: string, options: { enforce?: boolean }, command: Command) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        throw new CliError(`cannot read ${file}`);
      }
      let list: string[];
      try {
        list = documentsOf(file, text);
      } catch (err) {
        if (err instanceof CliError) throw err;
        throw new CliError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const data = await adminRequest<{ setTrustedDocuments: { count: number } }>(connectionOf(command, io), SET, {
        input: { appId: app, documents: list, enforce: options.enforce ?? false },
      });
      io.stdout(`${data.setTrustedDocuments.count} trusted documents${options.enforce ? ', enforced' : ' (not enforced)'}\n`);
    });
}
