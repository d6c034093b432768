// App ids and the PostgreSQL schema each app's data lives in. Ids are checked before any name
// is built from them, so a schema name can only ever be `app_` and twelve safe characters.

import { badInput } from '../../errors/index.js';

/** A lowercase letter, then eleven lowercase letters or digits. */
export const APP_ID_PATTERN = /^[a-z][a-z0-9]{11}$/;

export function isAppId(value: string): boolean {
  return APP_ID_PATTERN.test(value);
}

/** App names: a letter, then up to 62 letters, digits, `_` or `-`. */
export const APP_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;

export function isAppName(value: string): boolean {
  return APP_NAME_PATTERN.test(value);
}

/** The schema of an app's tables: `app_<id>`. */
export function appSchemaName(appId: string): string {
  if (!isAppId(appId)) throw badInput(`"${appId}" is not a valid app id`);
  return `app_${appId}`;
}

/** Notified with an app id after its schema, settings, tokens or existence change. */
export const CATALOG_CHANNEL = 'tessera_catalog';
