// The catalog's own schema history: an ordered list of migrations of the `tessera` schema.
// Append only: a released migration never changes; a new catalog version is a new entry.

import { sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';

export interface CatalogMigration {
  version: number;
  name: string;
  /** One statement per fragment (the embedded store runs one statement per query). */
  statements: SqlFragment[];
}

export const CATALOG_MIGRATIONS: readonly CatalogMigration[] = [
  {
    version: 1,
    name: 'apps, schema versions, admin tokens, signing keys',
    statements: [
      sql`CREATE TABLE tessera.apps (
        id text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9]{11}$'),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        settings jsonb NOT NULL DEFAULT '{}'::jsonb
      )`,
      sql`CREATE UNIQUE INDEX apps_name_key ON tessera.apps (name)`,
      sql`CREATE TABLE tessera.schema_versions (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        version integer NOT NULL CHECK (version >= 1),
        sdl text NOT NULL,
        -- json, not jsonb: the planner compares models as JSON text, so key order must survive.
        model json NOT NULL,
        steps json NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, version)
      )`,
      sql`CREATE TABLE tessera.admin_tokens (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`,
      sql`CREATE UNIQUE INDEX admin_tokens_hash_key ON tessera.admin_tokens (token_hash)`,
      sql`CREATE UNIQUE INDEX admin_tokens_active_name_key ON tessera.admin_tokens (app_id, name) WHERE revoked_at IS NULL`,
      sql`CREATE TABLE tessera.signing_keys (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        kid text NOT NULL,
        alg text NOT NULL,
        private_jwk jsonb NOT NULL,
        public_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        PRIMARY KEY (app_id, kid)
      )`,
    ],
  },
  {
    version: 2,
    name: 'login throttling counters',
    statements: [
      // The layout rate-limiter-flexible's PostgreSQL limiter reads and writes.
      sql`CREATE TABLE tessera.login_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`,
    ],
  },
  {
    version: 3,
    name: 'realtime event bodies too large to notify',
    statements: [
      // Row events travel by NOTIFY; a batch over its size limit is stored here and its id
      // notified instead. Rows are read once by each listening instance and expire soon after.
      sql`CREATE TABLE tessera.realtime_events (
        id bigserial PRIMARY KEY,
        payload text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX realtime_events_created_at ON tessera.realtime_events (created_at)`,
    ],
  },
  {
    version: 4,
    name: 'apps with realtime subscribers',
    statements: [
      // Which instance holds subscriptions of which app: mutations of other apps skip
      // publishing their events. An instance that dies leaves rows that expire.
      sql`CREATE TABLE tessera.realtime_apps (
        app_id text NOT NULL,
        instance uuid NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (app_id, instance)
      )`,
    ],
  },
  {
    version: 5,
    name: 'trusted documents',
    statements: [
      // An app's allow-list of GraphQL documents, by the SHA-256 of their text; `enforce` on the
      // set refuses every other document. Gone with the app.
      sql`CREATE TABLE tessera.trusted_document_sets (
        app_id text PRIMARY KEY REFERENCES tessera.apps (id) ON DELETE CASCADE,
        enforce boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE TABLE tessera.trusted_documents (
        app_id text NOT NULL REFERENCES tessera.trusted_document_sets (app_id) ON DELETE CASCADE,
        sha256 text NOT NULL,
        document text NOT NULL,
        PRIMARY KEY (app_id, sha256)
      )`,
    ],
  },
  {
    version: 6,
    name: 'app traffic',
    statements: [
      // Each app's operations per minute, summed over every instance (each adds what it
      // counted), for the console's graphs: counts, refusals and failures, and a latency
      // histogram (counts per bucket of TRAFFIC_BUCKETS_MS). Kept a week; gone with the app.
      sql`CREATE TABLE tessera.app_traffic (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        minute timestamptz NOT NULL,
        operations integer NOT NULL,
        errors integer NOT NULL,
        failures integer NOT NULL,
        latency integer[] NOT NULL,
        PRIMARY KEY (app_id, minute)
      )`,
      sql`CREATE INDEX app_traffic_minute_idx ON tessera.app_traffic (minute)`,
    ],
  },
  {
    version: 7,
    name: 'user sessions',
    statements: [
      // Refresh tokens, by the SHA-256 of the token (the token itself is never stored). Each
      // login starts a family; a refresh marks its token used and adds the next one to the
      // family; presenting a used token revokes the family. `password_fingerprint` ties the
      // session to the password it began under. Gone with the app; pruned once expired.
      sql`CREATE TABLE tessera.refresh_tokens (
        token_hash text PRIMARY KEY,
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        family uuid NOT NULL,
        user_id uuid NOT NULL,
        password_fingerprint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz
      )`,
      sql`CREATE INDEX refresh_tokens_family_idx ON tessera.refresh_tokens (family)`,
      sql`CREATE INDEX refresh_tokens_user_idx ON tessera.refresh_tokens (app_id, user_id)`,
      sql`CREATE INDEX refresh_tokens_expiry_idx ON tessera.refresh_tokens (expires_at)`,
      // A user's token generation: access tokens carry the generation they were issued in, so
      // ending every session of a user (logout everywhere, a password reset) raises it and
      // every access token issued before stops working. No row: generation 0.
      sql`CREATE TABLE tessera.user_generations (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        generation integer NOT NULL,
        PRIMARY KEY (app_id, user_id)
      )`,
    ],
  },
  {
    version: 8,
    name: 'mailed account tokens',
    statements: [
      // Tokens mailed to a user (address verification, password reset), by the SHA-256 of the
      // token: single use (`used_at`), expiring, bound to the address they were sent to. Gone
      // with the app; pruned once expired.
      sql`CREATE TABLE tessera.mailed_tokens (
        token_hash text PRIMARY KEY,
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('verifyEmail', 'resetPassword')),
        user_id uuid NOT NULL,
        email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`,
      sql`CREATE INDEX mailed_tokens_user_idx ON tessera.mailed_tokens (app_id, user_id)`,
      sql`CREATE INDEX mailed_tokens_expiry_idx ON tessera.mailed_tokens (expires_at)`,
    ],
  },
  {
    version: 9,
    name: 'two-factor login (TOTP)',
    statements: [
      // A user's TOTP factor: pending from enrolment until a code from it is given
      // (`confirmed_at`), then asked for at every login. The secret is stored as it is (base32):
      // a code can only be checked with it, and the catalog already holds the apps' signing keys
      // in the clear (docs/security.md). `last_step` is the time step of the last code accepted:
      // a code is accepted once, and never one older than it. Gone with the app, and deleted
      // with the user.
      sql`CREATE TABLE tessera.totp_factors (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        confirmed_at timestamptz,
        last_step bigint,
        PRIMARY KEY (app_id, user_id)
      )`,
      // The single-use recovery codes of a confirmed factor, by the SHA-256 of the code (the
      // codes themselves are shown once and never stored). Gone with the factor.
      sql`CREATE TABLE tessera.totp_recovery_codes (
        app_id text NOT NULL,
        user_id uuid NOT NULL,
        code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
        used_at timestamptz,
        PRIMARY KEY (app_id, user_id, code_hash),
        FOREIGN KEY (app_id, user_id) REFERENCES tessera.totp_factors (app_id, user_id) ON DELETE CASCADE
      )`,
    ],
  },
  {
    version: 10,
    name: 'OpenID Connect providers and identities',
    statements: [
      // An app's OpenID providers: the issuer and its discovery document as fetched when the
      // provider was added, the client id, and the client secret sealed (AES-256-GCM under the
      // server's secret key, never stored in clear: it must be sent to the provider as it is,
      // so it cannot be hashed). Scopes space-separated, as OAuth writes them. Gone with the app.
      sql`CREATE TABLE tessera.oidc_providers (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        name text NOT NULL,
        issuer text NOT NULL,
        client_id text NOT NULL,
        client_secret_sealed text NOT NULL,
        scopes text NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, name)
      )`,
      // Which user of the app an identity is: (issuer, subject) as the provider's ID tokens
      // state them, never an email address. One user may hold several; an identity belongs to
      // one user. A row whose user is gone is stale and gives way.
      sql`CREATE TABLE tessera.oidc_identities (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        issuer text NOT NULL,
        subject text NOT NULL,
        user_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz,
        PRIMARY KEY (app_id, issuer, subject)
      )`,
      sql`CREATE INDEX oidc_identities_user_idx ON tessera.oidc_identities (app_id, user_id)`,
    ],
  },
  {
    version: 11,
    name: 'file bytes to remove',
    statements: [
      // Stored file bytes that must go: a deleted File's (queued in the deleting transaction),
      // an app's whole prefix (queued as it is deleted), and each upload while it has no row
      // yet (`pending_upload`: the transaction creating its File takes the entry away; one
      // never claimed is an orphan, removed once `due_at` passes). A worker on any instance
      // takes due entries, pushing `due_at` back as it tries, and deletes an entry once the
      // bytes are gone. No foreign key: entries outlive their app.
      sql`CREATE TABLE tessera.file_removals (
        key text PRIMARY KEY,
        app_id text NOT NULL,
        prefix boolean NOT NULL DEFAULT false,
        pending_upload boolean NOT NULL DEFAULT false,
        due_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX file_removals_due_idx ON tessera.file_removals (due_at)`,
    ],
  },
  {
    version: 12,
    name: 'functions and their event deliveries',
    statements: [
      // An app's functions: endpoints Tessera calls (docs/functions.md). The signing secret
      // and the header values are sealed (AES-256-GCM under the server's secret key): they are
      // sent as they are, so they cannot be hashed, and header values often hold credentials.
      // `headers` is `[{ "name": …, "value": <sealed> }]`. Gone with the app.
      sql`CREATE TABLE tessera.functions (
        app_id text NOT NULL REFERENCES tessera.apps (id) ON DELETE CASCADE,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('BEFORE', 'EVENT', 'RESOLVER')),
        url text NOT NULL,
        secret_sealed text NOT NULL,
        headers jsonb NOT NULL DEFAULT '[]'::jsonb,
        timeout_ms integer NOT NULL CHECK (timeout_ms > 0),
        enabled boolean NOT NULL,
        "order" integer NOT NULL DEFAULT 0,
        operations text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app_id, name)
      )`,
      // The outbox of EVENT functions: one row per event and function, written in the
      // transaction of the mutation it tells of; its id is the event's id (Tessera-Event-Id),
      // the same at every attempt. A worker in each instance claims due rows (FOR UPDATE SKIP
      // LOCKED, then a lease in lease_until: a claim outlives no crash) and posts them;
      // `attempts` counts claims and fences a late answer from a lease another instance took
      // over. The retry window starts at created_at, or at redelivered_at after a redelivery.
      // Gone with the function; delivered and dead rows are pruned after a while.
      sql`CREATE TABLE tessera.function_deliveries (
        id uuid PRIMARY KEY,
        app_id text NOT NULL,
        function_name text NOT NULL,
        operation text NOT NULL,
        payload json NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz,
        last_status integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        redelivered_at timestamptz,
        delivered_at timestamptz,
        FOREIGN KEY (app_id, function_name) REFERENCES tessera.functions (app_id, name) ON DELETE CASCADE
      )`,
      sql`CREATE INDEX function_deliveries_due_idx ON tessera.function_deliveries (next_attempt_at) WHERE status = 'pending'`,
      sql`CREATE INDEX function_deliveries_listing_idx ON tessera.function_deliveries (app_id, function_name, created_at DESC)`,
      sql`CREATE INDEX function_deliveries_settled_idx ON tessera.function_deliveries (created_at) WHERE status <> 'pending'`,
    ],
  },
  {
    version: 13,
    name: 'clusters and app placements',
    statements: [
      // PostgreSQL servers beside the one holding the catalog (named `main`, never listed
      // here): the connection URL is sealed (it holds a password) under the server's secret key.
      sql`CREATE TABLE tessera.clusters (
        name text PRIMARY KEY,
        url_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      // Where each app lives. An app lives wholly on its cluster (its catalog rows and its
      // schema, so that its data and catalog change in one transaction); this row, on the
      // catalog's cluster only, makes its id and name known there, where names are unique
      // across clusters. Apps made before clusters existed live on `main`.
      sql`CREATE TABLE tessera.app_placements (
        app_id text PRIMARY KEY,
        name text NOT NULL UNIQUE,
        cluster text NOT NULL,
        -- Set while the app is copied to another cluster (moveApp): its writes are held off.
        moving_to text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX app_placements_cluster_idx ON tessera.app_placements (cluster)`,
      sql`INSERT INTO tessera.app_placements (app_id, name, cluster) SELECT id, name, 'main' FROM tessera.apps`,
      // Traffic of every app is summed in the catalog, whichever cluster the app lives on: it
      // no longer follows the catalog's own app rows (deleteApp removes it).
      sql`ALTER TABLE tessera.app_traffic DROP CONSTRAINT IF EXISTS app_traffic_app_id_fkey`,
    ],
  },
  {
    version: 14,
    name: 'the time a row was last linked',
    statements: [
      // Set on a row of an app's table whose relation column was just pointed at a row (a
      // trigger on each such table, src/store/ddl/linkTimes.ts): the row's column
      // `tessera$linked` takes the writing transaction's id, so that a subscription's event can
      // tell a link made after it committed from one that stood (docs/realtime.md).
      sql`CREATE FUNCTION tessera.link_time() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          NEW."tessera$linked" := pg_catalog.pg_current_xact_id();
          RETURN NEW;
        END
      $$`,
      // Apps made before have neither the column nor the trigger: they get both when next
      // loaded (upgradeLinkTimes), and say so here; an app made from now on has them from the start.
      sql`ALTER TABLE tessera.apps ADD COLUMN link_times boolean NOT NULL DEFAULT false`,
      sql`ALTER TABLE tessera.apps ALTER COLUMN link_times SET DEFAULT true`,
    ],
  },
];

/** The catalog version this code expects: the last migration's. */
export const CATALOG_VERSION = CATALOG_MIGRATIONS.at(-1)?.version ?? 0;
