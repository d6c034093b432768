// The management service: apps, schema migrations, admin tokens and settings, on top of the
// store's catalog. HTTP and GraphQL live elsewhere; this is what they (and the CLI) call.

import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { TesseraError, badInput, notFound } from '../errors/index.js';
import { DEFAULT_SETTINGS, HIDDEN_PASSWORD, MAX_CORS_ORIGINS, SETTING_BOUNDS, TEXT_SETTINGS, accountType, corsOriginProblem, decodeId, hidePassword, parseSchema, planMigration, shownSettings, withDefaults } from '../model/index.js';
import type { AppSettings, MigrationPlan } from '../model/index.js';
import {
  CATALOG_CHANNEL,
  adminTokenHash,
  retireSigningKeys,
  applyPlan,
  deleteApp,
  findApp,
  insertAdminToken,
  insertApp,
  insertSchemaVersion,
  insertSigningKey,
  isAppName,
  listAdminTokens,
  listApps,
  listFunctions,
  liveSchema,
  lockApp,
  revokeAdminToken,
  schemaHistory,
  documentHash,
  replaceTrustedDocuments,
  trustedDocuments,
  totpStatuses,
  updateAppSettings,
} from '../store/index.js';
import { parse } from 'graphql';
import type { AppRow, Queryable, Store } from '../store/index.js';
import { appSchema, printApiSchema } from '../graphql/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import { oidcProviderMethods } from './oidcProviders.js';
import { functionMethods } from './functions.js';
import type { FunctionsSetup } from '../functions/index.js';
import type { AppDetail, AppSummary, MigrateResult, StoreAdminService } from './types.js';

/** Most trusted documents one app may hold. */
const MAX_TRUSTED_DOCUMENTS = 10_000;
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh app id: 12 characters, a lowercase letter then letters and digits. */
export function newAppId(): string {
  const bytes = randomBytes(12);
  let id = ID_ALPHABET[bytes[0]! % 26]!;
  for (let i = 1; i < 12; i++) id += ID_ALPHABET[bytes[i]! % ID_ALPHABET.length]!;
  return id;
}

export function summary(app: AppRow): AppSummary {
  return {
    id: app.id,
    name: app.name,
    endpointPath: `/graphql/${app.id}`,
    schemaVersion: app.schemaVersion,
    createdAt: app.createdAt,
    settings: shownSettings(withDefaults(app.settings)),
  };
}

async function requireApp(q: Queryable, appId: string): Promise<AppRow> {
  const app = await findApp(q, appId);
  if (!app) throw notFound(`No app with id or name "${appId}"`);
  return app;
}

/** The app's RESOLVER functions by name: what a schema's `@function(name:)` may name. */
async function resolverNames(q: Queryable, appId: string): Promise<Set<string>> {
  return new Set((await listFunctions(q, appId)).filter((f) => f.kind === 'RESOLVER').map((f) => f.name));
}

function planView(plan: MigrationPlan): MigrateResult['plan'] {
  return plan.steps.map((s) => ({ kind: s.step.kind, description: s.description, destructive: s.destructive }));
}

/**
 * Checks a settings patch: known keys, right types, numbers within their bounds. A refusal names
 * the setting in `extensions.setting`, so a client (the console) can point at the field.
 */
export function validateSettings(current: AppSettings, patch: Record<string, unknown>): Partial<AppSettings> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'corsOrigins') {
      if (value !== undefined) out.corsOrigins = validateCorsOrigins(value);
      continue;
    }
    if (key in TEXT_SETTINGS) {
      if (value === undefined) continue;
      // The SMTP URL read back (its password hidden) and written again keeps the stored one.
      if (key === 'smtpUrl' && value !== null && value === hidePassword(current.smtpUrl)) continue;
      out[key] = validateText(key, value);
      continue;
    }
    if (value === undefined || value === null) continue;
    if (!(key in DEFAULT_SETTINGS)) throw badInput(`Unknown setting "${key}"`, { setting: key });
    const expected = typeof DEFAULT_SETTINGS[key as keyof AppSettings];
    if (typeof value !== expected) throw badInput(`Setting "${key}" must be a ${expected}`, { setting: key });
    const bounds = SETTING_BOUNDS[key];
    if (bounds && typeof value === 'number') {
      const [min, max] = bounds;
      if (!Number.isInteger(value) || value < min || value > max) {
        throw badInput(`Setting "${key}" must be an integer from ${min} to ${max}`, { setting: key });
      }
    }
    out[key] = value;
  }
  const merged = { ...current, ...out };
  if (merged.defaultPageSize > merged.maxPageSize) {
    const setting = 'defaultPageSize' in out || !('maxPageSize' in out) ? 'defaultPageSize' : 'maxPageSize';
    throw badInput(`defaultPageSize (${merged.defaultPageSize}) cannot exceed maxPageSize (${merged.maxPageSize})`, { setting });
  }
  return out as Partial<AppSettings>;
}

/** A text setting: a string within its length and form, or null for the default. */
function validateText(key: string, value: unknown): string | null {
  if (value === null) return null;
  const spec = TEXT_SETTINGS[key];
  if (typeof value !== 'string' || !spec) throw badInput(`Setting "${key}" must be a string, or null`, { setting: key });
  if (value.includes('\u0000')) throw badInput(`Setting "${key}" cannot hold a NUL character`, { setting: key });
  if (value.length > spec.max) throw badInput(`Setting "${key}" holds at most ${spec.max} characters`, { setting: key });
  const problem = spec.problem?.(value);
  if (problem) throw badInput(`Setting "${key}": ${problem}`, { setting: key });
  // The hidden form written back with another host or user would store the mask as the password.
  if (key === 'smtpUrl' && hidePassword(value) === value && value.includes(`:${HIDDEN_PASSWORD}@`)) {
    throw badInput('Setting "smtpUrl": the password is hidden; type it again when the server, port or user changes', { setting: key });
  }
  return value;
}

/** An app's allowed origins: a list of origins or `*`; null gives the app back the server's list. */
function validateCorsOrigins(value: unknown): string[] | null {
  if (value === null) return null;
  const setting = { setting: 'corsOrigins' };
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw badInput('Setting "corsOrigins" must be a list of origins, or null', setting);
  if (value.length > MAX_CORS_ORIGINS) throw badInput(`Setting "corsOrigins" holds at most ${MAX_CORS_ORIGINS} origins`, setting);
  for (const origin of value as string[]) {
    const problem = corsOriginProblem(origin);
    if (problem) throw badInput(`Setting "corsOrigins": ${problem}`, setting);
  }
  return [...new Set(value as string[])];
}

export function signingKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = randomUUID();
  return {
    kid,
    alg: 'EdDSA',
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' },
  };
}

export interface AdminServiceOptions {
  /** Discovers OpenID providers and seals their client secrets; without it none can be added. */
  oidc?: OidcRelyingParty | undefined;
  /** Seals functions' secrets and says whether they may be on private networks; without it none can be created. */
  functions?: FunctionsSetup | undefined;
}

/** The management service of the apps of one store (a cluster); clusterRouting.ts puts clusters together. */
export function storeAdminService(store: Store, options: AdminServiceOptions = {}): StoreAdminService {
  return {
    ...oidcProviderMethods(store, options.oidc),
    ...functionMethods(store, options.functions),
    async createApp({ name, schema }) {
      if (!isAppName(name)) {
        throw badInput('App name must start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)');
      }
      // A new app has no function yet: a schema with custom fields is pushed once they exist.
      const model = parseSchema(schema, { functions: new Set() });
      const plan = planMigration(null, model);
      const id = newAppId();
      await store.transaction(async (tx) => {
        await insertApp(tx, { id, name, settings: {} });
        await lockApp(tx, id);
        await applyPlan(tx, id, plan);
        await insertSchemaVersion(tx, { appId: id, version: 1, sdl: schema, model, steps: plan.steps });
        await insertSigningKey(tx, { appId: id, ...signingKey() });
      });
      return summary(await requireApp(store, id));
    },

    async migrateSchema({ appId, schema, dryRun = false, allowDestructive = false }) {
      const app = await requireApp(store, appId);
      const model = parseSchema(schema, { functions: await resolverNames(store, app.id) });
      return store.transaction(async (tx): Promise<MigrateResult> => {
        // The lock serialises pushes to one app; the live version is read under it, so a second
        // concurrent push is planned against the first one's result.
        await lockApp(tx, app.id);
        const live = await liveSchema(tx, app.id);
        if (!live) throw notFound(`App "${appId}" has no schema`);
        const plan = planMigration(live.model, model);
        const unchanged = plan.steps.length === 0 && live.sdl === schema;
        const version = unchanged ? live.version : live.version + 1;
        const destructive = plan.steps.filter((s) => s.destructive);
        if (dryRun || unchanged) return { plan: planView(plan), applied: false, version };
        if (destructive.length > 0 && !allowDestructive) {
          throw new TesseraError(
            'DESTRUCTIVE_CHANGE',
            `The migration has ${destructive.length} destructive step(s); nothing was applied. Push again with allowDestructive to apply it.`,
            { steps: destructive.map((s) => ({ kind: s.step.kind, description: s.description })) },
          );
        }
        await applyPlan(tx, app.id, plan);
        await insertSchemaVersion(tx, { appId: app.id, version, sdl: schema, model, steps: plan.steps });
        await tx.notify(CATALOG_CHANNEL, app.id);
        return { plan: planView(plan), applied: true, version };
      });
    },

    async updateApp({ appId, settings }) {
      const app = await requireApp(store, appId);
      const patch = validateSettings(withDefaults(app.settings), settings as Record<string, unknown>);
      await updateAppSettings(store, app.id, { ...app.settings, ...patch });
      await store.notify(CATALOG_CHANNEL, app.id);
      return summary(await requireApp(store, app.id));
    },

    async deleteApp({ appId }) {
      const app = await findApp(store, appId);
      if (!app) return false;
      return store.transaction(async (tx) => {
        await lockApp(tx, app.id);
        await tx.notify(CATALOG_CHANNEL, app.id);
        return deleteApp(tx, app.id);
      });
    },

    async createAdminToken({ appId, name }) {
      if (!TOKEN_NAME.test(name)) {
        throw badInput('Token name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit');
      }
      const app = await requireApp(store, appId);
      const token = `tat_${randomBytes(32).toString('base64url')}`;
      await insertAdminToken(store, { appId: app.id, name, tokenHash: adminTokenHash(token) });
      return token;
    },

    async revokeAdminToken({ appId, name }) {
      const app = await requireApp(store, appId);
      const revoked = await revokeAdminToken(store, app.id, name);
      await store.notify(CATALOG_CHANNEL, app.id);
      return revoked;
    },

    async rotateSigningKey({ appId }) {
      const app = await requireApp(store, appId);
      const key = signingKey();
      await store.transaction(async (tx) => {
        await retireSigningKeys(tx, app.id);
        await insertSigningKey(tx, { appId: app.id, ...key });
        await tx.notify(CATALOG_CHANNEL, app.id);
      });
      return key.kid;
    },

    async setTrustedDocuments({ appId, documents, enforce }) {
      const app = await requireApp(store, appId);
      if (documents.length > MAX_TRUSTED_DOCUMENTS) throw badInput(`An app trusts at most ${MAX_TRUSTED_DOCUMENTS} documents`);
      const byHash = new Map<string, string>();
      documents.forEach((text, i) => {
        // Only documents a client could send: each must parse (it is validated when it runs).
        try {
          parse(text, { noLocation: true });
        } catch (err) {
          throw badInput(`documents[${i}] is not a GraphQL document: ${err instanceof Error ? err.message : String(err)}`);
        }
        byHash.set(documentHash(text), text);
      });
      await store.transaction(async (tx) => {
        await replaceTrustedDocuments(tx, app.id, enforce, byHash);
        await tx.notify(CATALOG_CHANNEL, app.id);
      });
      return byHash.size;
    },

    async trustedDocuments(appId) {
      const set = await trustedDocuments(store, appId);
      return { enforce: set?.enforce ?? false, count: set?.documents.size ?? 0 };
    },

    async listApps() {
      return (await listApps(store)).map(summary);
    },

    async getApp(idOrName): Promise<AppDetail | null> {
      const app = await findApp(store, idOrName);
      if (!app) return null;
      const [live, history, tokens] = await Promise.all([
        liveSchema(store, app.id),
        schemaHistory(store, app.id),
        listAdminTokens(store, app.id),
      ]);
      return { ...summary(app), schema: live?.sdl ?? '', history, adminTokens: tokens };
    },

    async apiSchema(idOrName) {
      const app = await findApp(store, idOrName);
      const live = app && (await liveSchema(store, app.id));
      if (!app || !live) return null;
      return printApiSchema(appSchema(app.id, live.version, live.model));
    },

    async twoFactor(appId, userIds) {
      const live = await liveSchema(store, appId);
      if (!live) throw notFound(`No app with id "${appId}"`);
      const account = accountType(live.model).name;
      const uuids = userIds.map((id, i) => decodeId(id, account, `userIds[${i}]`));
      const on = new Map((await totpStatuses(store, appId, uuids)).map((row) => [row.userId, row]));
      return userIds.map((userId, i) => {
        const row = on.get(uuids[i] as string);
        return { userId, enabled: row !== undefined, enabledAt: row?.enabledAt ?? null, recoveryCodesLeft: row?.recoveryCodesLeft ?? 0 };
      });
    },
  };
}
