// `tessera cluster add|list`: the PostgreSQL servers apps are placed on. `main` is the one
// DATABASE_URL names (it holds the catalog); each added cluster gets the catalog schema, and
// new apps go to the one holding the fewest apps unless `tessera app create --cluster` says.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { table } from '../format.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const ADD_CLUSTER = `mutation AddCluster($input: AddClusterInput!) { addCluster(input: $input) { cluster { name apps reachable } } }`;
const LIST_CLUSTERS = `query Clusters { clusters { name apps reachable } }`;

interface ClusterRow {
  name: string;
  apps: number;
  reachable: boolean;
}

export function registerClusterCommands(program: Command, io: CliIo): void {
  const cluster = program.command('cluster').description('add and list the PostgreSQL clusters apps are placed on');

  withConnectionOptions(
    cluster
      .command('add')
      .description('add a PostgreSQL server apps can be placed on (it must answer; its database gets the catalog schema)')
      .argument('<name>', 'a lowercase letter, then up to 30 lowercase letters, digits, "-" and "_"')
      .argument('<url>', 'its connection URL, postgres://user:password@host:5432/database (stored sealed)'),
  )
    .addHelpText('after', '\nExample:\n  tessera cluster add east postgres://tessera:secret@db-east:5432/tessera')
    .action(async (name: string, url: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ addCluster: { cluster: ClusterRow } }>(connectionOf(command, io), ADD_CLUSTER, { input: { name, url } });
      io.stdout(`added cluster ${data.addCluster.cluster.name}; place apps on it with: tessera app create NAME --schema FILE --cluster ${name}\n`);
    });

  withConnectionOptions(cluster.command('list').description('list the clusters, their apps and whether each answers').option('--json', 'print JSON instead of a table'))
    .addHelpText('after', '\nExample:\n  tessera cluster list')
    .action(async (options: { json?: boolean }, command: Command) => {
      const data = await adminRequest<{ clusters: ClusterRow[] }>(connectionOf(command, io), LIST_CLUSTERS, {});
      if (options.json) io.stdout(`${JSON.stringify(data.clusters, null, 2)}\n`);
      else io.stdout(`${table(['NAME', 'APPS', 'STATE'], data.clusters.map((c) => [c.name, String(c.apps), c.reachable ? 'reachable' : 'UNREACHABLE']))}\n`);
    });
}
