// Imports an archive as a new app, all or nothing: the schema applied through the normal
// migration path, then the rows loaded in batches (one statement each, foreign keys checked at
// the end, so rows may come in any order), then the account rows and functions, then the files'
// bytes streamed into the store — in one transaction, so an archive that turns out truncated,
// altered or invalid leaves nothing behind (the bytes written are removed: portabilityFiles.ts).

import { readArchive } from '../archive/index.js';
import type { ArchiveItem, CatalogRecord, HeaderRecord, SchemaRecord, SettingsRecord, TableRecord } from '../archive/index.js';
import { badInput } from '../errors/index.js';
import { parseSchema, planMigration, withDefaults } from '../model/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import {
  appTables,
  applyPlan,
  checkForeignKeys,
  clearTables,
  deferForeignKeys,
  documentHash,
  findApp,
  insertApp,
  insertFunction,
  insertJsonRows,
  insertOidcProvider,
  insertPortableOidcIdentity,
  insertPortableTotpFactor,
  insertSchemaVersion,
  insertSigningKey,
  lockApp,
  replaceTrustedDocuments,
} from '../store/index.js';
import type { AppTable, Store, TableColumn, Transaction } from '../store/index.js';
import { checkAppName, resealProviders } from './carryOver.js';
import type { ProgressListener } from './portability.js';
import { ArchiveFiles, withNewAppFiles } from './portabilityFiles.js';
import type { PortableFiles } from './portabilityFiles.js';
import { carryFunction, recordFunction } from './portabilityFunctions.js';
import type { PortableFunctions } from './portabilityFunctions.js';
import { dataFailure } from './portableErrors.js';
import { newAppId, signingKey, summary, validateSettings } from './service.js';
import type { AppSummary } from './types.js';

/** A batch is sent once it holds this many rows or this many characters. */
const BATCH_ROWS = 2000;
const BATCH_CHARS = 4 * 1024 * 1024;

export interface ImportResult {
  app: AppSummary;
  /** Rows loaded, over every table. */
  rows: number;
  /** What was left behind, and why (an OpenID provider whose secret could not be opened). */
  warnings: string[];
}

interface Batch {
  table: string;
  columns: TableColumn[];
  texts: string[];
  chars: number;
  firstLine: number;
  lastLine: number;
}

type Items = AsyncIterator<ArchiveItem>;

async function nextRecord<K extends 'header' | 'schema' | 'settings'>(items: Items, kind: K): Promise<Extract<HeaderRecord | SchemaRecord | SettingsRecord, { kind: K }>> {
  const { value, done } = await items.next();
  // The reader checks the order of the first records; this only narrows their types.
  if (done || value.kind !== 'record' || value.record.kind !== kind) throw new Error(`the archive reader gave no ${kind} record`);
  return value.record as Extract<HeaderRecord | SchemaRecord | SettingsRecord, { kind: K }>;
}

/** The archive table's columns as the new app's table has them (types from the new table). */
function targetColumns(record: TableRecord, tables: ReadonlyMap<string, AppTable>, line: number): TableColumn[] {
  const table = tables.get(record.name);
  if (!table || table.of !== record.of) throw badInput(`The archive's table ${record.name} (line ${line}) is not a table of its own schema`, { archive: { line } });
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  return record.columns.map((name) => {
    const column = byName.get(name);
    if (!column) throw badInput(`The archive's table ${record.name} (line ${line}) has a column ${name} its schema does not have`, { archive: { line } });
    return column;
  });
}

class Loader {
  readonly #tx: Transaction;
  readonly #appId: string;
  readonly #onProgress: ProgressListener | undefined;
  #batch: Batch | undefined;
  rows = 0;

  constructor(tx: Transaction, appId: string, onProgress: ProgressListener | undefined) {
    this.#tx = tx;
    this.#appId = appId;
    this.#onProgress = onProgress;
  }

  async add(table: string, columns: TableColumn[], text: string, line: number): Promise<void> {
    let batch = this.#batch;
    if (!batch || batch.table !== table) {
      await this.flush();
      batch = { table, columns, texts: [], chars: 0, firstLine: line, lastLine: line };
      this.#batch = batch;
    }
    batch.texts.push(text);
    batch.chars += text.length;
    batch.lastLine = line;
    if (batch.texts.length >= BATCH_ROWS || batch.chars >= BATCH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = undefined;
    if (!batch || batch.texts.length === 0) return;
    try {
      await this.#tx.query(insertJsonRows(this.#appId, batch.table, batch.columns, `[${batch.texts.join(',')}]`));
    } catch (err) {
      const where = `table ${batch.table}, lines ${batch.firstLine}–${batch.lastLine}`;
      throw dataFailure(err, 'The archive cannot be imported', where, { archive: { line: batch.firstLine, lastLine: batch.lastLine } });
    }
    this.rows += batch.texts.length;
    this.#onProgress?.(this.rows);
  }
}

interface CarryContext {
  oidc: OidcRelyingParty | undefined;
  functions: PortableFunctions | undefined;
  fromApp: string;
  warnings: string[];
}

async function loadCatalogRecord(tx: Transaction, appId: string, record: CatalogRecord, line: number, context: CarryContext): Promise<void> {
  try {
    switch (record.kind) {
      case 'totpFactor':
        return await insertPortableTotpFactor(tx, appId, record);
      case 'oidcIdentity':
        return await insertPortableOidcIdentity(tx, appId, record);
      case 'oidcProvider': {
        const issuer = typeof record.metadata.issuer === 'string' ? record.metadata.issuer : record.issuer;
        const provider = { ...record, metadata: { ...record.metadata, issuer } };
        for (const p of resealProviders(context.oidc, context.fromApp, appId, [provider], context.warnings)) await insertOidcProvider(tx, p);
        return;
      }
      case 'trustedDocuments': {
        const documents = new Map(record.documents.map((d) => [documentHash(d), d]));
        return await replaceTrustedDocuments(tx, appId, record.enforce, documents);
      }
      case 'function': {
        const carried = carryFunction(context.functions, context.fromApp, appId, recordFunction(record, line), 'import', context.warnings);
        if (carried) await insertFunction(tx, carried);
        return;
      }
      default: {
        const never: never = record;
        throw new Error(`unknown catalog record ${JSON.stringify(never)}`);
      }
    }
  } catch (err) {
    throw dataFailure(err, 'The archive cannot be imported', `the ${record.kind} record, line ${line}`, { archive: { line } });
  }
}

export async function importArchive(
  store: Store,
  source: AsyncIterable<Uint8Array>,
  options: {
    oidc: OidcRelyingParty | undefined;
    functions: PortableFunctions | undefined;
    files: PortableFiles | undefined;
    name?: string | undefined;
    onProgress?: ProgressListener | undefined;
  },
): Promise<ImportResult> {
  const items = readArchive(source)[Symbol.asyncIterator]();
  try {
    const header = await nextRecord(items, 'header');
    const schema = await nextRecord(items, 'schema');
    const settings = await nextRecord(items, 'settings');
    const name = options.name ?? header.app.name;
    checkAppName(name);
    const model = parseSchema(schema.sdl);
    const patch = validateSettings(withDefaults({}), settings.settings);
    const plan = planMigration(null, model);
    const tables = appTables(model);
    const byName = new Map(tables.map((t) => [t.name, t]));
    const id = newAppId();
    const warnings: string[] = [];

    const context: CarryContext = { oidc: options.oidc, functions: options.functions, fromApp: header.app.id, warnings };

    const rows = await withNewAppFiles(store, options.files, id, (claimFiles) =>
      store.transaction(async (tx) => {
        await insertApp(tx, { id, name, settings: patch });
        await lockApp(tx, id);
        await applyPlan(tx, id, plan);
        await insertSchemaVersion(tx, { appId: id, version: 1, sdl: schema.sdl, model, steps: plan.steps });
        await insertSigningKey(tx, { appId: id, ...signingKey() });
        await clearTables(tx, id, tables);
        await deferForeignKeys(tx, id, tables);
        const loader = new Loader(tx, id, options.onProgress);
        const files = new ArchiveFiles(tx, id, model, options.files?.storage);
        let columns: TableColumn[] = [];
        try {
          for (let next = await items.next(); !next.done; next = await items.next()) {
            const item = next.value;
            if (item.kind === 'row') {
              await loader.add(item.table.name, columns, item.text, item.line);
              continue;
            }
            await loader.flush();
            if (item.kind === 'end') {
              await files.end(item.line);
              continue;
            }
            const record = item.record;
            switch (record.kind) {
              case 'table':
                columns = targetColumns(record, byName, item.line);
                break;
              case 'file':
                await files.file(record, item.line);
                break;
              case 'fileChunk':
                await files.chunk(record, item.line);
                break;
              case 'header':
              case 'schema':
              case 'settings':
                throw new Error(`the archive reader gave a second ${record.kind} record`);
              default:
                await loadCatalogRecord(tx, id, record, item.line, context);
            }
          }
        } finally {
          await files.abort();
        }
        try {
          await checkForeignKeys(tx, id, tables);
        } catch (err) {
          throw dataFailure(err, 'The archive cannot be imported');
        }
        await claimFiles(tx);
        return loader.rows;
      }),
    );
    const created = await findApp(store, id);
    if (!created) throw new Error('the imported app is missing');
    return { app: summary(created), rows, warnings };
  } finally {
    // A failed import stops reading: the source (an upload, a file) is released.
    await items.return?.(undefined);
  }
}
