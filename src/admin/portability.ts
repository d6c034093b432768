// Data portability (DESIGN section 13): an app exported as an archive from a consistent snapshot,
// an archive imported as a new app with the same ids, and an app forked inside the database.
// What travels: the live schema, settings, every row, two-factor factors, OpenID identities and
// providers, trusted documents. What does not: admin tokens, sessions, mailed tokens, signing
// keys (a token of the old app is worthless in the new one), traffic (docs/portability.md).

import { ArchiveWriter } from '../archive/index.js';
import type { EndRecord } from '../archive/index.js';
import { badInput, notFound } from '../errors/index.js';
import { FILE, parseSchema, planMigration } from '../model/index.js';
import type { AppModel } from '../model/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import {
  appSchemaName,
  appTables,
  applyPlan,
  checkForeignKeys,
  clearTables,
  copyAccountRows,
  copyTable,
  deferForeignKeys,
  findApp,
  insertApp,
  insertOidcProvider,
  insertSchemaVersion,
  insertSigningKey,
  listOidcProviders,
  liveSchema,
  lockApp,
  portableOidcIdentities,
  portableTotpFactors,
  readSnapshot,
  replaceTrustedDocuments,
  rowsAsJson,
  trustedDocuments,
} from '../store/index.js';
import type { AppTable, Store, Transaction } from '../store/index.js';
import { checkAppName, resealProviders } from './carryOver.js';
import { importArchive } from './importArchive.js';
import type { ImportResult } from './importArchive.js';
import { ident, sql } from '../sql/index.js';
import { dataFailure } from './portableErrors.js';
import { newAppId, signingKey, summary } from './service.js';
import type { AppSummary } from './types.js';

/** The first statement of a fork's transaction: every table is read from one snapshot. */
const REPEATABLE_READ = sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`;

/** Rows fetched from a snapshot cursor at a time. */
const EXPORT_BATCH = 2000;

export interface PortabilityOptions {
  /** Re-seals OpenID providers' client secrets for the new app; without it providers stay behind. */
  oidc?: OidcRelyingParty | undefined;
  /** The Tessera version written into archive headers. */
  version: string;
}

/** Rows done so far, for progress reports. */
export type ProgressListener = (rows: number) => void;

export interface Portability {
  /** Throws what would stop the app's export before a byte is written (an app holding files). */
  checkExportable(appId: string): Promise<void>;
  /** Writes the app's archive; NOT_FOUND when there is no such app. Ends the writer (aborts it on a failure). */
  exportApp(appId: string, writer: ArchiveWriter, onProgress?: ProgressListener): Promise<EndRecord>;
  /** Makes a new app of an archive, all or nothing. */
  importApp(source: AsyncIterable<Uint8Array>, options?: { name?: string | undefined; onProgress?: ProgressListener | undefined }): Promise<ImportResult>;
  /** A new app with the app's schema and a copy of its data (same ids), made in the database. */
  forkApp(input: { appId: string; name: string }): Promise<{ app: AppSummary; warnings: string[] }>;
}

async function copyData(tx: Transaction, fromApp: string, toApp: string, from: readonly AppTable[], to: readonly AppTable[]): Promise<void> {
  const targets = new Map(to.map((t) => [t.name, t]));
  await clearTables(tx, toApp, to);
  await deferForeignKeys(tx, toApp, to);
  for (const table of from) {
    const target = targets.get(table.name);
    const names = new Set(target?.columns.map((c) => c.name));
    const missing = table.columns.filter((c) => !names.has(c.name));
    if (!target || missing.length > 0) throw new Error(`the schema read again has no ${target ? `column ${missing[0]?.name} in ` : ''}table ${table.name}`);
    await copyTable(tx, fromApp, toApp, table.name, table.columns.map((c) => c.name));
  }
  await checkForeignKeys(tx, toApp, to);
}

/**
 * Files' bytes do not travel in archives or forks yet: an app holding File rows is refused
 * rather than copied into an app whose files would have no bytes.
 */
async function refuseFiles(tx: Transaction, appId: string, model: AppModel, what: 'exported' | 'forked'): Promise<void> {
  const type = model.types.find((t) => t.name === FILE);
  if (!type) return;
  const { rows } = await tx.query<{ held: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM ${ident(appSchemaName(appId), type.table)}) AS held`);
  if (rows[0]?.held) throw badInput(`This app holds files, which cannot be ${what} yet (their bytes do not travel): delete them first, or back the app up with the store's own tools (docs/portability.md)`, { field: 'appId' });
}

export function createPortability(store: Store, options: PortabilityOptions): Portability {
  return {
    async checkExportable(appId) {
      const app = await findApp(store, appId);
      if (!app) throw notFound(`No app with id or name "${appId}"`);
      await store.transaction(async (tx) => {
        const live = await liveSchema(tx, app.id);
        if (live) await refuseFiles(tx, app.id, live.model, 'exported');
      });
    },

    async exportApp(appId, writer, onProgress) {
      const app = await findApp(store, appId);
      if (!app) throw notFound(`No app with id or name "${appId}"`);
      return readSnapshot(
        store,
        async (tx, declare) => {
          const [live, row] = [await liveSchema(tx, app.id), await findApp(tx, app.id)];
          if (!live || !row) throw notFound(`No app with id or name "${appId}"`);
          await refuseFiles(tx, app.id, live.model, 'exported');
          const tables = appTables(live.model);
          const cursors = [];
          for (const t of tables) cursors.push({ table: t, cursor: await declare<{ r: string }>(rowsAsJson(app.id, t.name, t.columns)) });
          return {
            live,
            row,
            cursors,
            totp: await portableTotpFactors(tx, app.id),
            identities: await portableOidcIdentities(tx, app.id),
            providers: await listOidcProviders(tx, app.id),
            trusted: await trustedDocuments(tx, app.id),
          };
        },
        async ({ live, row, cursors, totp, identities, providers, trusted }) => {
          try {
            await writer.header({
              tessera: options.version,
              exportedAt: new Date().toISOString(),
              app: { id: row.id, name: row.name, createdAt: row.createdAt.toISOString() },
              store: store.kind,
            });
            await writer.record({ kind: 'schema', version: live.version, sdl: live.sdl });
            await writer.record({ kind: 'settings', settings: row.settings });
            for (const { table, cursor } of cursors) {
              await writer.record({ kind: 'table', name: table.name, of: table.of, columns: table.columns.map((c) => c.name) });
              for (let batch = await cursor.next(EXPORT_BATCH); batch.length > 0; batch = await cursor.next(EXPORT_BATCH)) {
                await writer.rows(batch.map(({ r }) => r));
                onProgress?.(writer.rowCount);
              }
            }
            for (const f of totp) await writer.record({ kind: 'totpFactor', ...f });
            for (const i of identities) await writer.record({ kind: 'oidcIdentity', ...i });
            for (const p of providers) {
              const { name, issuer, clientId, sealedSecret, scopes, metadata, createdAt } = p;
              await writer.record({ kind: 'oidcProvider', name, issuer, clientId, sealedSecret, scopes, metadata, createdAt: createdAt.toISOString() });
            }
            if (trusted) await writer.record({ kind: 'trustedDocuments', enforce: trusted.enforce, documents: [...trusted.documents.values()] });
            return await writer.end();
          } catch (err) {
            writer.abort(err instanceof Error ? err : new Error(String(err)));
            throw err;
          }
        },
      ).catch((err: unknown) => {
        // Failed before the first record (the snapshot could not be taken): the download ends cut short.
        writer.abort(err instanceof Error ? err : new Error(String(err)));
        throw err;
      });
    },

    importApp(source, importOptions = {}) {
      return importArchive(store, source, { oidc: options.oidc, name: importOptions.name, onProgress: importOptions.onProgress });
    },

    async forkApp({ appId, name }) {
      checkAppName(name);
      const source = await findApp(store, appId);
      if (!source) throw notFound(`No app with id or name "${appId}"`);
      const id = newAppId();
      const warnings: string[] = [];
      try {
        await store.transaction(async (tx) => {
          // One snapshot for every table: a row and the rows it references are copied together.
          await tx.query(REPEATABLE_READ);
          const [live, row] = [await liveSchema(tx, source.id), await findApp(tx, source.id)];
          if (!live || !row) throw notFound(`No app with id or name "${appId}"`);
          await refuseFiles(tx, source.id, live.model, 'forked');
          const model = parseSchema(live.sdl);
          const plan = planMigration(null, model);
          await insertApp(tx, { id, name, settings: row.settings });
          await lockApp(tx, id);
          await applyPlan(tx, id, plan);
          await insertSchemaVersion(tx, { appId: id, version: 1, sdl: live.sdl, model, steps: plan.steps });
          await insertSigningKey(tx, { appId: id, ...signingKey() });
          await copyData(tx, source.id, id, appTables(live.model), appTables(model));
          await copyAccountRows(tx, source.id, id);
          for (const p of resealProviders(options.oidc, source.id, id, await listOidcProviders(tx, source.id), warnings)) await insertOidcProvider(tx, p);
          const trusted = await trustedDocuments(tx, source.id);
          if (trusted) await replaceTrustedDocuments(tx, id, trusted.enforce, trusted.documents);
        });
      } catch (err) {
        throw dataFailure(err, 'The fork failed');
      }
      const created = await findApp(store, id);
      if (!created) throw new Error('the forked app is missing');
      return { app: summary(created), warnings };
    },
  };
}
