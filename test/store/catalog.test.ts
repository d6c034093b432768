// The system catalog on both stores: creating and upgrading it (also from several instances at
// once), and the rows of apps, schema versions, admin tokens and signing keys.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraError } from '../../src/errors/index.js';
import { parseSchema, planMigration } from '../../src/model/index.js';
import { sql } from '../../src/sql/index.js';
import {
  CATALOG_MIGRATIONS,
  CATALOG_VERSION,
  appSchemaName,
  catalogVersion,
  deleteApp,
  ensureCatalog,
  findAdminToken,
  findApp,
  insertAdminToken,
  insertApp,
  insertSchemaVersion,
  insertSigningKey,
  listAdminTokens,
  listApps,
  listSigningKeys,
  liveSchema,
  openStore,
  revokeAdminToken,
  schemaHistory,
  updateAppSettings,
} from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { createTestApp, newAppId } from './appFixtures.js';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    if (err instanceof TesseraError) return err.code;
    throw err;
  }
}

const SDL = 'type Post @model { title: String! }';

for (const kind of STORES) {
  describe(`catalog (${kind})`, () => {
    let t: TestStore;
    let store: Store;

    beforeAll(async () => {
      t = await openTestStore(kind, { catalog: false });
      store = t.store;
    });
    afterAll(() => t?.close());

    it('is created once, also by several instances at once, and left alone after that', async () => {
      expect(await catalogVersion(store)).toBe(0);
      // Postgres: separate pools, as separate instances would have. Embedded: one process only.
      const others = t.databaseUrl ? await Promise.all([1, 2].map(() => openStore({ databaseUrl: t.databaseUrl! }))) : [];
      try {
        await Promise.all([store, ...others, store].map((s) => ensureCatalog(s)));
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
      expect(await catalogVersion(store)).toBe(CATALOG_VERSION);
      await ensureCatalog(store);
      // One row per migration (catalog versions need not be consecutive).
      const { rows } = await store.query<{ n: number }>(sql`SELECT count(*) AS n FROM tessera.meta`);
      expect(rows[0]?.n).toBe(CATALOG_MIGRATIONS.length);
    });

    it('refuses a catalog newer than this code', async () => {
      await store.query(sql`INSERT INTO tessera.meta (version, name) VALUES (${CATALOG_VERSION + 1}, 'from the future')`);
      await expect(ensureCatalog(store)).rejects.toThrow(/newer than this Tessera supports/);
      await store.query(sql`DELETE FROM tessera.meta WHERE version = ${CATALOG_VERSION + 1}`);
    });

    it('stores apps and finds them by id or name', async () => {
      const id = newAppId();
      await insertApp(store, { id, name: 'zeta', settings: { maxDepth: 9 } });
      const other = newAppId();
      await insertApp(store, { id: other, name: 'alpha', settings: {} });
      const byId = await findApp(store, id);
      expect(byId).toEqual({ id, name: 'zeta', createdAt: expect.any(Date), settings: { maxDepth: 9 }, schemaVersion: 0, linkTimes: true });
      expect(await findApp(store, 'zeta')).toEqual(byId);
      expect(await findApp(store, 'nobody')).toBeNull();
      const names = (await listApps(store)).map((a) => a.name);
      expect(names.indexOf('alpha')).toBeLessThan(names.indexOf('zeta'));

      await updateAppSettings(store, id, { maxDepth: 5, introspection: false });
      expect((await findApp(store, id))?.settings).toEqual({ maxDepth: 5, introspection: false });
    });

    it('refuses a second app with a taken name, leaving the transaction usable', async () => {
      const id = newAppId();
      await insertApp(store, { id, name: 'taken', settings: {} });
      await store.transaction(async (tx) => {
        expect(await codeOf(insertApp(tx, { id: newAppId(), name: 'taken', settings: {} }))).toBe('CONFLICT');
        await tx.query(sql`SELECT 1`);
      });
    });

    it('refuses an invalid app id', async () => {
      expect(await codeOf(insertApp(store, { id: 'Bad-Id', name: 'bad', settings: {} }))).toBe('BAD_USER_INPUT');
      expect(() => appSchemaName('x; DROP SCHEMA tessera')).toThrow(TesseraError);
      expect(appSchemaName('abcdefghijk1')).toBe('app_abcdefghijk1');
      expect(await deleteApp(store, 'not an id')).toBe(false);
    });

    it('keeps every schema version; the latest is live', async () => {
      const id = newAppId();
      await insertApp(store, { id, name: `versions-${id}`, settings: {} });
      const model = parseSchema(SDL);
      const plan = planMigration(null, model);
      await insertSchemaVersion(store, { appId: id, version: 1, sdl: SDL, model, steps: plan.steps });
      const sdl2 = `${SDL}\ntype Tag @model { name: String }`;
      const model2 = parseSchema(sdl2);
      const plan2 = planMigration(model, model2);
      await insertSchemaVersion(store, { appId: id, version: 2, sdl: sdl2, model: model2, steps: plan2.steps });

      const live = await liveSchema(store, id);
      expect(live).toEqual({ appId: id, version: 2, sdl: sdl2, model: model2, steps: plan2.steps, appliedAt: expect.any(Date) });
      // The planner compares stored and fresh models as JSON text: key order must come back too.
      expect(JSON.stringify(live?.model)).toBe(JSON.stringify(model2));
      expect(planMigration(live!.model, parseSchema(sdl2)).steps).toEqual([]);
      const history = await schemaHistory(store, id);
      expect(history.map((h) => [h.version, h.steps])).toEqual([
        [1, plan.steps.length],
        [2, plan2.steps.length],
      ]);
      expect(history[0]?.appliedAt).toBeInstanceOf(Date);
      expect((await findApp(store, id))?.schemaVersion).toBe(2);
      expect(await codeOf(insertSchemaVersion(store, { appId: id, version: 2, sdl: sdl2, model: model2, steps: [] }))).toBe('CONFLICT');
      expect(await liveSchema(store, newAppId())).toBeNull();
    });

    it('keeps admin tokens as hashes, one active per name', async () => {
      const id = newAppId();
      await insertApp(store, { id, name: `tokens-${id}`, settings: {} });
      await insertAdminToken(store, { appId: id, name: 'ci', tokenHash: hash('secret-1') });
      await insertAdminToken(store, { appId: id, name: 'admin', tokenHash: hash('secret-2') });
      expect(await findAdminToken(store, id, hash('secret-1'))).toEqual({ name: 'ci' });
      expect(await findAdminToken(store, newAppId(), hash('secret-1'))).toBeNull();
      expect(await codeOf(insertAdminToken(store, { appId: id, name: 'ci', tokenHash: hash('secret-3') }))).toBe('CONFLICT');
      expect((await listAdminTokens(store, id)).map((x) => x.name)).toEqual(['admin', 'ci']);

      expect(await revokeAdminToken(store, id, 'ci')).toBe(true);
      expect(await revokeAdminToken(store, id, 'ci')).toBe(false);
      expect(await findAdminToken(store, id, hash('secret-1'))).toBeNull();
      expect(await listAdminTokens(store, id)).toEqual([{ name: 'admin', createdAt: expect.any(Date) }]);
      await insertAdminToken(store, { appId: id, name: 'ci', tokenHash: hash('secret-4') });
      expect(await findAdminToken(store, id, hash('secret-4'))).toEqual({ name: 'ci' });
      const stored = await store.query<{ token_hash: string }>(sql`SELECT token_hash FROM tessera.admin_tokens WHERE app_id = ${id}`);
      expect(stored.rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
    });

    it('keeps signing keys', async () => {
      const id = newAppId();
      await insertApp(store, { id, name: `keys-${id}`, settings: {} });
      const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k1' };
      await insertSigningKey(store, { appId: id, kid: 'k1', alg: 'EdDSA', privateJwk: { ...jwk, d: 'secret' }, publicJwk: jwk });
      expect(await listSigningKeys(store, id)).toEqual([
        { kid: 'k1', alg: 'EdDSA', privateJwk: { ...jwk, d: 'secret' }, publicJwk: jwk, createdAt: expect.any(Date), retiredAt: null },
      ]);
    });

    it('deletes an app with its schema and catalog rows; the name can be reused', async () => {
      const app = await createTestApp(store, SDL);
      await insertAdminToken(store, { appId: app.id, name: 'ci', tokenHash: hash(`t-${app.id}`) });
      const name = (await findApp(store, app.id))!.name;
      expect(await deleteApp(store, app.id)).toBe(true);
      expect(await deleteApp(store, app.id)).toBe(false);
      expect(await findApp(store, app.id)).toBeNull();
      const schemas = await store.query(sql`SELECT 1 FROM pg_namespace WHERE nspname = ${app.schema}`);
      expect(schemas.rowCount).toBe(0);
      for (const table of [sql`tessera.schema_versions`, sql`tessera.admin_tokens`]) {
        const left = await store.query(sql`SELECT 1 FROM ${table} WHERE app_id = ${app.id}`);
        expect(left.rowCount).toBe(0);
      }
      await insertApp(store, { id: newAppId(), name, settings: {} });
    });
  });
}
