// An app's settings through the management API: which settings the server has (read from its
// schema, so a setting added to the server shows up here without a console change), their
// values, changing some of them (`updateApp`, only the settings given change), and a test mail
// that checks the mail settings (`sendTestMail`).

import { adminRequest } from './admin';

export type SettingKind = 'integer' | 'number' | 'boolean' | 'text' | 'list';

export interface SettingInfo {
  name: string;
  /** The server's description: what it does, its default and the values it may take. */
  description: string;
  kind: SettingKind;
  /** Whether null is a value of its own (`corsOrigins: null` follows the server's list). */
  nullable: boolean;
}

export type SettingValue = number | boolean | string | string[] | null;

export interface AppSettingsView {
  id: string;
  name: string;
  settings: Record<string, SettingValue>;
}

interface IntrospectedType {
  kind: string;
  name: string | null;
  ofType: IntrospectedType | null;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

function kindOf(type: IntrospectedType): { kind: SettingKind; nullable: boolean } {
  const nullable = type.kind !== 'NON_NULL';
  const inner = type.kind === 'NON_NULL' && type.ofType ? type.ofType : type;
  if (inner.kind === 'LIST') return { kind: 'list', nullable };
  switch (inner.name) {
    case 'Int':
      return { kind: 'integer', nullable };
    case 'Float':
      return { kind: 'number', nullable };
    case 'Boolean':
      return { kind: 'boolean', nullable };
    default:
      return { kind: 'text', nullable };
  }
}

/** The settings an app has, as the server's `AppSettings` type declares them. */
export async function loadSettingInfo(): Promise<SettingInfo[]> {
  const query = `query SettingFields { __type(name: "AppSettings") { fields { name description type { ${TYPE_REF} } } } }`;
  type Data = { __type: { fields: { name: string; description: string | null; type: IntrospectedType }[] } | null };
  const data = await adminRequest<Data>(query);
  return (data.__type?.fields ?? []).map((f) => ({ name: f.name, description: f.description ?? '', ...kindOf(f.type) }));
}

export async function loadAppSettings(appId: string, names: readonly string[]): Promise<AppSettingsView | null> {
  const query = `query AppSettings($id: ID!) { app(id: $id) { id name settings { ${names.join(' ')} } } }`;
  return (await adminRequest<{ app: AppSettingsView | null }>(query, { id: appId })).app;
}

/** Changes the settings in `patch`; answers every setting's value afterwards. */
export async function updateAppSettings(appId: string, patch: Record<string, SettingValue>, names: readonly string[]): Promise<AppSettingsView> {
  const query = `mutation UpdateSettings($i: UpdateAppInput!) { updateApp(input: $i) { app { id name settings { ${names.join(' ')} } } } }`;
  return (await adminRequest<{ updateApp: { app: AppSettingsView } }>(query, { i: { appId, settings: patch } })).updateApp.app;
}

/** Sends a test mail through the app's saved mail settings; the server answers UNAVAILABLE, with the mail server's answer, when it cannot. */
export async function sendTestMail(appId: string, to: string): Promise<void> {
  const query = 'mutation SendTestMail($i: SendTestMailInput!) { sendTestMail(input: $i) { sent } }';
  await adminRequest<{ sendTestMail: { sent: boolean } }>(query, { i: { appId, to } });
}
