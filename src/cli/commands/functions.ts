// `tessera function create|list|update|delete|deliveries|redeliver`: an app's functions — the
// endpoints of its own that Tessera calls, signed — and their event deliveries. The signing
// secret is printed once, when created or rotated; header values are never printed.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { table } from '../format.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const FIELDS = 'name kind url operations headers { name } timeoutMs enabled order';
const CREATE = `mutation CreateFunction($input: CreateFunctionInput!) { createFunction(input: $input) { function { ${FIELDS} } secret } }`;
const UPDATE = `mutation UpdateFunction($input: UpdateFunctionInput!) { updateFunction(input: $input) { function { ${FIELDS} } secret } }`;
const DELETE = 'mutation DeleteFunction($input: DeleteFunctionInput!) { deleteFunction(input: $input) { deleted } }';
const LIST = `query Functions($app: ID!) { app(id: $app) { functions { ${FIELDS} } } }`;
const DELIVERY_FIELDS = 'id operation status attempts lastStatusCode lastError nextAttemptAt createdAt deliveredAt';
const DELIVERIES = `query Deliveries($app: ID!, $name: String!, $first: Int!, $status: FunctionDeliveryStatus) {
  app(id: $app) { function(name: $name) { deliveries(first: $first, status: $status) { ${DELIVERY_FIELDS} } } } }`;
const REDELIVER = `mutation Redeliver($input: RedeliverInput!) { redeliver(input: $input) { delivery { ${DELIVERY_FIELDS} } } }`;

interface FunctionView {
  name: string;
  kind: string;
  url: string;
  operations: string[];
  headers: { name: string }[];
  timeoutMs: number;
  enabled: boolean;
  order: number;
}

interface DeliveryView {
  id: string;
  operation: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

interface SettingFlags {
  /** The function's URL (--url is the server's, as in every client command). */
  endpoint?: string;
  operation?: string[];
  header?: string[];
  timeoutMs?: string;
  order?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `Name: value` → { name, value }. */
function headerOf(text: string): { name: string; value: string } {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new CliError(`--header "${text.slice(0, 40)}" is not "Name: value"`);
  return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
}

function integer(text: string, flag: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new CliError(`${flag} must be an integer, got "${text}"`);
  return Number(text);
}

/** The settings given on the command line, as the management API takes them. */
function settings(flags: SettingFlags): Record<string, unknown> {
  return {
    ...(flags.endpoint === undefined ? {} : { url: flags.endpoint }),
    ...(flags.operation === undefined ? {} : { operations: flags.operation.flatMap((o) => o.split(',')).map((o) => o.trim()).filter((o) => o !== '') }),
    ...(flags.header === undefined ? {} : { headers: flags.header.map(headerOf) }),
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: integer(flags.timeoutMs, '--timeout-ms') }),
    ...(flags.order === undefined ? {} : { order: integer(flags.order, '--order') }),
  };
}

function describe(fn: FunctionView): string {
  const headers = fn.headers.length === 0 ? '' : `, headers ${fn.headers.map((h) => h.name).join(', ')}`;
  const operations = fn.operations.length === 0 ? '' : ` on ${fn.operations.join(', ')}`;
  return `${fn.kind} function "${fn.name}" → ${fn.url}${operations} (timeout ${fn.timeoutMs} ms, order ${fn.order}${fn.enabled ? '' : ', disabled'}${headers})`;
}

function settingOptions(command: Command): Command {
  return command
    .option('--operation <names>', 'a mutation of the app it is called for (BEFORE, EVENT), e.g. createPost; repeat it or separate with commas', collect)
    .option('--header <header>', 'a header sent with every call, "Name: value" (repeat it); the value is stored sealed and never shown', collect)
    .option('--timeout-ms <ms>', 'how long a call may take, 100 to 30000 (default 5000)')
    .option('--order <n>', 'BEFORE functions of one operation run by ascending order (default 0)')
    .option('--json', 'print JSON instead of text');
}

export function registerFunctionCommands(program: Command, io: CliIo): void {
  const fn = program.command('function').description("create, list, change and delete an app's functions (endpoints Tessera calls, signed), and see their event deliveries");

  withConnectionOptions(
    settingOptions(
      fn
        .command('create')
        .description('create a function; its signing secret is printed once')
        .argument('<app>', 'app id or name')
        .argument('<name>', 'the function name: letters, digits, _ and -')
        .requiredOption('--kind <kind>', 'BEFORE, EVENT or RESOLVER')
        .requiredOption('--endpoint <url>', 'where calls are POSTed (http or https)')
        .option('--disabled', 'create it disabled (not called until enabled)'),
    ),
  )
    .addHelpText('after', '\nExample:\n  tessera function create blog audit --kind EVENT --endpoint https://hooks.example.com/tessera --operation createPost,deletePost')
    .action(async (app: string, name: string, flags: SettingFlags & { kind: string; disabled?: boolean }, command: Command) => {
      const input = { appId: app, name, kind: flags.kind.toUpperCase(), ...settings(flags), enabled: !flags.disabled };
      const data = await adminRequest<{ createFunction: { function: FunctionView; secret: string } }>(connectionOf(command, io), CREATE, { input });
      const { function: created, secret } = data.createFunction;
      if (flags.json) io.stdout(`${JSON.stringify(data.createFunction, null, 2)}\n`);
      else io.stdout(`created ${describe(created)}\nsigning secret (shown once; verify Tessera-Signature with it): ${secret}\n`);
    });

  withConnectionOptions(fn.command('list').description("list an app's functions (never their secrets or header values)").argument('<app>', 'app id or name').option('--json', 'print JSON instead of a table'))
    .addHelpText('after', '\nExample:\n  tessera function list blog')
    .action(async (app: string, options: { json?: boolean }, command: Command) => {
      const data = await adminRequest<{ app: { functions: FunctionView[] } | null }>(connectionOf(command, io), LIST, { app });
      if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
      const list = data.app.functions;
      if (options.json) io.stdout(`${JSON.stringify(list, null, 2)}\n`);
      else if (list.length === 0) io.stdout(`no functions (create one with: tessera function create ${app} NAME --kind EVENT --endpoint URL --operation createX)\n`);
      else {
        const rows = list.map((f) => [f.name, f.kind, f.enabled ? 'yes' : 'no', f.url, f.operations.join(',')]);
        io.stdout(`${table(['NAME', 'KIND', 'ENABLED', 'URL', 'OPERATIONS'], rows)}\n`);
      }
    });

  withConnectionOptions(
    settingOptions(
      fn
        .command('update')
        .description('change a function: the options given change (--header replaces every header)')
        .argument('<app>', 'app id or name')
        .argument('<name>', 'the function name')
        .option('--endpoint <url>', 'where calls are POSTed')
        .option('--enable', 'call it again')
        .option('--disable', 'stop calling it (EVENT deliveries wait)')
        .option('--no-headers', 'remove every header')
        .option('--rotate-secret', 'replace its signing secret; the new one is printed once'),
    ),
  )
    .addHelpText('after', '\nExample:\n  tessera function update blog audit --disable\n  tessera function update blog audit --rotate-secret')
    .action(async (app: string, name: string, flags: SettingFlags & { enable?: boolean; disable?: boolean; headers?: boolean; rotateSecret?: boolean }, command: Command) => {
      if (flags.enable && flags.disable) throw new CliError('give --enable or --disable, not both');
      const input = {
        appId: app,
        name,
        ...settings(flags),
        ...(flags.headers === false ? { headers: [] } : {}),
        ...(flags.enable ? { enabled: true } : flags.disable ? { enabled: false } : {}),
        ...(flags.rotateSecret ? { rotateSecret: true } : {}),
      };
      const data = await adminRequest<{ updateFunction: { function: FunctionView; secret: string | null } }>(connectionOf(command, io), UPDATE, { input });
      const { function: updated, secret } = data.updateFunction;
      if (flags.json) io.stdout(`${JSON.stringify(data.updateFunction, null, 2)}\n`);
      else io.stdout(`updated ${describe(updated)}\n${secret ? `new signing secret (shown once): ${secret}\n` : ''}`);
    });

  withConnectionOptions(fn.command('delete').description('delete a function and its deliveries').argument('<app>', 'app id or name').argument('<name>', 'the function name'))
    .addHelpText('after', '\nExample:\n  tessera function delete blog audit')
    .action(async (app: string, name: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ deleteFunction: { deleted: boolean } }>(connectionOf(command, io), DELETE, { input: { appId: app, name } });
      if (!data.deleteFunction.deleted) throw new CliError(`app "${app}" has no function named "${name}" (see: tessera function list ${app})`);
      io.stdout(`deleted function "${name}"\n`);
    });

  withConnectionOptions(
    fn
      .command('deliveries')
      .description("an EVENT function's latest deliveries, newest first")
      .argument('<app>', 'app id or name')
      .argument('<name>', 'the function name')
      .option('--status <status>', 'only PENDING, DELIVERED or DEAD ones')
      .option('--first <n>', 'how many, 1 to 100 (default 20)')
      .option('--json', 'print JSON instead of a table'),
  )
    .addHelpText('after', '\nExample:\n  tessera function deliveries blog audit --status DEAD')
    .action(async (app: string, name: string, flags: { status?: string; first?: string; json?: boolean }, command: Command) => {
      const variables = { app, name, first: flags.first === undefined ? 20 : integer(flags.first, '--first'), ...(flags.status ? { status: flags.status.toUpperCase() } : {}) };
      const data = await adminRequest<{ app: { function: { deliveries: DeliveryView[] } | null } | null }>(connectionOf(command, io), DELIVERIES, variables);
      if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
      if (!data.app.function) throw new CliError(`app "${app}" has no function named "${name}" (see: tessera function list ${app})`);
      const list = data.app.function.deliveries;
      if (flags.json) io.stdout(`${JSON.stringify(list, null, 2)}\n`);
      else if (list.length === 0) io.stdout('no deliveries\n');
      else {
        const rows = list.map((d) => [d.id, d.operation, d.status, String(d.attempts), d.lastStatusCode === null ? '-' : String(d.lastStatusCode), d.nextAttemptAt ?? '-', d.lastError ?? '']);
        io.stdout(`${table(['ID', 'OPERATION', 'STATUS', 'ATTEMPTS', 'LAST STATUS', 'NEXT ATTEMPT', 'LAST ERROR'], rows)}\n`);
      }
    });

  withConnectionOptions(fn.command('redeliver').description('send a delivery again now, with a fresh retry window').argument('<app>', 'app id or name').argument('<delivery>', 'the delivery id (see: tessera function deliveries)'))
    .addHelpText('after', '\nExample:\n  tessera function redeliver blog 3f0c…')
    .action(async (app: string, delivery: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ redeliver: { delivery: DeliveryView } }>(connectionOf(command, io), REDELIVER, { input: { appId: app, deliveryId: delivery } });
      io.stdout(`delivery ${data.redeliver.delivery.id} is due again\n`);
    });
}
