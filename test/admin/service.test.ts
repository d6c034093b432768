// The management service on both stores: concurrent pushes are serialised, and a migration
// that fails part-way leaves the app exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import type { AdminService } from '../../src/admin/index.js';
import { sql, ident } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';

const V1 = 'type Note @model { text: String }';

describe.each(STORES)('admin service (%s)', (kind) => {
  let ts: TestStore;
  let admin: AdminService;

  beforeAll(async () => {
    ts = await openTestStore(kind);
    admin = createAdminService(ts.store);
  });
  afterAll(() => ts.close());

  it('serialises two concurrent pushes: each gets its own version, both changes land', async () => {
    const app = await admin.createApp({ name: `conc-${kind}`, schema: V1 });
    const a = 'type Note @model { text: String a: Int }';
    const b = 'type Note @model { text: String a: Int b: Int }';
    // Either may run first; when b does, a's push drops b's field, which must be allowed.
    const [ra, rb] = await Promise.all([
      admin.migrateSchema({ appId: app.id, schema: a, allowDestructive: true }),
      admin.migrateSchema({ appId: app.id, schema: b, allowDestructive: true }),
    ]);
    expect([ra.version, rb.version].sort()).toEqual([2, 3]);
    expect(ra.applied && rb.applied).toBe(true);
    const detail = await admin.getApp(app.id);
    expect(detail?.history.map((h) => h.version)).toEqual([1, 2, 3]);
    // Whichever ran second was planned against the first one's result.
    const second = ra.version === 3 ? ra : rb;
    expect(second.plan.every((s) => s.kind === 'addField' || s.kind === 'dropField')).toBe(true);
    const cols = await ts.store.query<{ column_name: string }>(
      sql`SELECT column_name FROM information_schema.columns WHERE table_schema = ${appSchemaName(app.id)} AND table_name = 'Note' ORDER BY column_name`,
    );
    const expected = ra.version === 3 ? ['a', 'createdAt', 'id', 'modifiedAt', 'text'] : ['a', 'b', 'createdAt', 'id', 'modifiedAt', 'text'];
    expect(cols.rows.map((r) => r.column_name)).toEqual(expected);
  });

  it('leaves no trace of a migration that fails on the data', async () => {
    const app = await admin.createApp({ name: `fail-${kind}`, schema: V1 });
    const table = ident(appSchemaName(app.id), 'Note');
    await ts.store.query(sql`INSERT INTO ${table} ("text") VALUES ('keep me')`);
    // Creates a type and adds an index first, then fails adding a required field with no default.
    const bad = 'type Note @model { text: String @index subtitle: String! } type Other @model { x: Int }';
    await expect(admin.migrateSchema({ appId: app.id, schema: bad })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    const detail = await admin.getApp(app.id);
    expect(detail?.schemaVersion).toBe(1);
    expect(detail?.schema).toBe(V1);
    const tables = await ts.store.query<{ table_name: string }>(
      sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${appSchemaName(app.id)} ORDER BY table_name`,
    );
    expect(tables.rows.map((r) => r.table_name)).not.toContain('Other');
    const idx = await ts.store.query(sql`SELECT 1 FROM pg_indexes WHERE schemaname = ${appSchemaName(app.id)} AND indexdef LIKE '%("text")%'`);
    expect(idx.rowCount).toBe(0);
    const rows = await ts.store.query<{ text: string }>(sql`SELECT "text" FROM ${table}`);
    expect(rows.rows).toEqual([{ text: 'keep me' }]);
    // With a default the same push goes through.
    const good = 'type Note @model { text: String @index subtitle: String! @default(value: "-") } type Other @model { x: Int }';
    expect((await admin.migrateSchema({ appId: app.id, schema: good })).version).toBe(2);
  });

  it('refuses destructive steps unless allowed, applying nothing', async () => {
    const app = await admin.createApp({ name: `destr-${kind}`, schema: 'type Note @model { text: String old: Int }' });
    const next = 'type Note @model { text: String extra: Int }';
    await expect(admin.migrateSchema({ appId: app.id, schema: next })).rejects.toMatchObject({
      code: 'DESTRUCTIVE_CHANGE',
      extensions: { steps: [{ kind: 'dropField', description: 'Drop field Note.old and its values' }] },
    });
    expect((await admin.getApp(app.id))?.schemaVersion).toBe(1);
    const dry = await admin.migrateSchema({ appId: app.id, schema: next, dryRun: true });
    expect(dry).toMatchObject({ applied: false, version: 2 });
    expect(dry.plan.filter((s) => s.destructive).map((s) => s.kind)).toEqual(['dropField']);
    expect((await admin.migrateSchema({ appId: app.id, schema: next, allowDestructive: true })).applied).toBe(true);
  });
});
