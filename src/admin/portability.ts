// Data portability (DESIGN section 13): an app exported as an archive from a consistent snapshot,
// an archive imported as a new app with the same ids, and an app forked inside the database.
// What travels: the live schema, settings, every row, two-factor factors, OpenID identities and
// providers, trusted documents, functions (disabled) and files' bytes. What does not: admin
// tokens, sessions, mailed tokens, signing keys (a token of the old app is worthless in the new
// one), functions' deliveries, traffic (docs/portability.md).

import { ArchiveWriter } from '../archive/index.js';
import type { EndRecord } from '../archive/index.js';
import { notFound } from '../errors/index.js';
import type { FunctionsSetup } from '../functions/index.js';
import { parseSchema, planMigration } from '../model/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import {
  appTables,
  applyPlan,
  checkForeignKeys,
  clearTables,
  copyAccountRows,
  copyTable,
  deferForeignKeys,
  fileRowsStatement,
  findApp,
  insertApp,
  insertFunction,
  insertOidcProvider,
  insertSchemaVersion,
  insertSigningKey,
  listFunctions,
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
import type { AppTable, FileBytesRow, Store, Transaction } from '../store/index.js';
import { checkAppName, resealProviders } from './carryOver.js';
import { importArchive } from './importArchive.js';
import type { ImportResult } from './importArchive.js';
import { sql } from '../sql/index.js';
import { copyFiles, requireStorageFor, withNewAppFiles, writeFiles } from './portabilityFiles.js';
import type { PortableFiles } from './portabilityFiles.js';
import { carryFunction, functionRecord, portableFunctions } from './portabilityFunctions.js';
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
  /** Re-seals functions' secrets and header values for the new app; without it functions stay behind. */
  functions?: FunctionsSetup | undefined;
  /** Where files' bytes are kept; without it an app holding files is neither exported nor forked. */
  files?: PortableFiles | undefined;
  /** The Tessera version written into archive headers. */
  version: string;
}

/** Rows done so far, for progress reports. */
export type ProgressListener = (rows: number) => void;

export interface Portability {
  /** Throws what would stop the app's export before a byte is written (files on a server that keeps none). */
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

/** Portability of the apps of one store (a cluster); clusterRouting.ts puts clusters together. */
export function storePortability(store: Store, options: PortabilityOptions): Portability {
  const functions = portableFunctions(options.functions);
  const storage = options.files?.storage;
  return {
    async checkExportable(appId) {
      const app = await findApp(store, appId);
      if (!app) throw notFound(`No app with id or name "${appId}"`);
      await store.transaction(async (tx) => {
        const live = await liveSchema(tx, app.id);
        if (live) await requireStorageFor(tx, app.id, live.model, options.files, 'exported');
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
          await requireStorageFor(tx, app.id, live.model, options.files, 'exported');
          const tables = appTables(live.model);
          const cursors = [];
          for (const t of tables) cursors.push({ table: t, cursor: await declare<{ r: string }>(rowsAsJson(app.id, t.name, t.columns)) });
          const files = fileRowsStatement(app.id, live.model);
          return {
            live,
            row,
            cursors,
            files: files && (await declare<FileBytesRow>(files)),
            functions: await listFunctions(tx, app.id),
            totp: await portableTotpFactors(tx, app.id),
            identities: await portableOidcIdentities(tx, app.id),
            providers: await listOidcProviders(tx, app.id),
            trusted: await trustedDocuments(tx, app.id),
          };
        },
        async ({ live, row, cursors, files, functions: carried, totp, identities, providers, trusted }) => {
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
            for (const f of carried) await writer.record(functionRecord(f));
            // Files last, their bytes read from the store; no storage means no File row (checked above).
            if (files && storage) await writeFiles(writer, storage, app.id, files);
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
      return importArchive(store, source, { oidc: options.oidc, functions, files: options.files, name: importOptions.name, onProgress: importOptions.onProgress });
    },

    async forkApp({ appId, name }) {
      checkAppName(name);
      const source = await findApp(store, appId);
      if (!source) throw notFound(`No app with id or name "${appId}"`);
      const id = newAppId();
      const warnings: string[] = [];
      try {
        await withNewAppFiles(store, options.files, id, (claimFiles) =>
          store.transaction(async (tx) => {
            // One snapshot for every table: a row and the rows it references are copied together.
            await tx.query(REPEATABLE_READ);
            const [live, row] = [await liveSchema(tx, source.id), await findApp(tx, source.id)];
            if (!live || !row) throw notFound(`No app with id or name "${appId}"`);
            await requireStorageFor(tx, source.id, live.model, options.files, 'forked');
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
            for (const f of await listFunctions(tx, source.id)) {
              const carried = carryFunction(functions, source.id, id, f, 'fork', warnings);
              if (carried) await insertFunction(tx, carried);
            }
            if (storage) await copyFiles(tx, storage, source.id, id, model);
            await claimFiles(tx);
          }),
        );
      } catch (err) {
        throw dataFailure(err, 'The fork failed');
      }
      const created = await findApp(store, id);
      if (!created) throw new Error('the forked app is missing');
      return { app: summary(created), warnings };
    },
  };
}
