// An app's settings: token lifetimes, page sizes, request limits, introspection, allowed origins,
// mail, and (apart from the form) the OpenID providers its users sign in with. The list of
// settings and their descriptions come from the server; this page only groups and labels the ones
// it knows. Saving sends the changed settings alone (updateApp); the server checks them and a
// refusal is shown with its code, at the field it names.

import { useEffect, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { asApiError } from '../api/graphql';
import { loadAppSettings, loadSettingInfo, updateAppSettings } from '../api/settings';
import type { AppSettingsView, SettingInfo } from '../api/settings';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAction, useAsync } from '../components/useAsync';
import { EMPTY_DRAFT, HIDDEN_PASSWORD, draftOf, hiddenPasswordProblem, sameValue, valueOf } from '../settings/drafts';
import type { Draft } from '../settings/drafts';
import { SettingControl } from '../settings/SettingControl';
import type { Presentation } from '../settings/SettingControl';
import { OidcProviders } from '../settings/OidcProviders';
import { TestMailForm } from '../settings/TestMailForm';
import { AppHeading, NoSuchApp } from './AppHeading';

interface Group {
  title: string;
  hint?: string;
  settings: Readonly<Record<string, Presentation>>;
}

/** How the page groups and labels the settings it knows; any other setting goes under "Other settings". */
const GROUPS: readonly Group[] = [
  {
    title: 'User tokens',
    hint: 'A user token is what loginUser answers; a refresh token gets a new one, so a session lasts as long as it is refreshed in time.',
    settings: {
      tokenLifetimeSeconds: { label: 'Token lifetime', unit: 'seconds' },
      refreshTokenLifetimeSeconds: { label: 'Session lifetime (refresh token)', unit: 'seconds' },
    },
  },
  {
    title: 'Pages',
    hint: 'How many objects a connection returns when a query gives no first or last, and the most it may ask for.',
    settings: { defaultPageSize: { label: 'Default page size' }, maxPageSize: { label: 'Maximum page size' } },
  },
  {
    title: 'Request limits',
    hint: 'Queries beyond a limit are refused with LIMIT_EXCEEDED before they run.',
    settings: {
      maxDepth: { label: 'Query depth' },
      maxAliases: { label: 'Aliases' },
      maxDirectives: { label: 'Directives' },
      maxTokens: { label: 'Tokens per document' },
      maxCost: { label: 'Cost' },
      statementTimeoutMs: { label: 'Statement timeout', unit: 'milliseconds' },
    },
  },
  {
    title: 'Introspection and error messages',
    settings: { introspection: { label: 'Answer introspection queries' }, fieldSuggestions: { label: 'Suggest similar field names in errors' } },
  },
  { title: 'Cross-origin requests (CORS)', settings: { corsOrigins: { label: 'Allowed origins' } } },
  {
    title: 'Mail',
    hint: "Where the app's mail (address verification, password reset) goes out. An empty field uses the server's setting.",
    settings: {
      smtpUrl: {
        label: 'SMTP server',
        mono: true,
        placeholder: 'smtp://user:password@mail.example.com:587',
        defaultText: "the server's TESSERA_SMTP_URL",
        note: `The password is shown as ${HIDDEN_PASSWORD}. Saving the URL as it is shown keeps the stored password; to change any other part of the URL, type the password again.`,
      },
      mailFrom: { label: 'Sender', placeholder: 'Shop <noreply@shop.example>', defaultText: "the server's TESSERA_MAIL_FROM" },
    },
  },
  {
    title: 'Mail texts',
    hint: 'Texts may use {{token}} (the code; required), {{username}} and {{appName}}; subjects never show the code. An empty field uses the built-in text.',
    settings: {
      verifyEmailSubject: { label: 'Verification mail subject', defaultText: 'the built-in subject' },
      verifyEmailText: { label: 'Verification mail text', multiline: true, defaultText: 'the built-in text' },
      resetPasswordSubject: { label: 'Password reset mail subject', defaultText: 'the built-in subject' },
      resetPasswordText: { label: 'Password reset mail text', multiline: true, defaultText: 'the built-in text' },
    },
  },
];

export function SettingsPage({ appId }: { appId: string }) {
  const info = useAsync(loadSettingInfo, []);
  const names = useMemo(() => info.data?.map((s) => s.name) ?? [], [info.data]);
  const app = useAsync(async () => (names.length > 0 ? loadAppSettings(appId, names) : null), [appId, names]);

  if ((info.loading && !info.data) || (app.loading && !app.data)) return <Loading label="Loading the settings…" />;
  if (info.error || app.error) return <ErrorBox error={info.error ?? app.error} title="Could not load the settings" />;
  if (!app.data || !info.data) return <NoSuchApp appId={appId} />;
  return <SettingsForm key={app.data.id} appId={appId} infos={info.data} initial={app.data} />;
}

function SettingsForm({ appId, infos, initial }: { appId: string; infos: SettingInfo[]; initial: AppSettingsView }) {
  const [saved, setSaved] = useState(initial.settings);
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() => Object.fromEntries(infos.map((i) => [i.name, draftOf(initial.settings[i.name])])));
  const [result, setResult] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const names = infos.map((i) => i.name);
  const byName = new Map(infos.map((i) => [i.name, i]));
  const changed = infos.filter((i) => !sameValue(valueOf(i, drafts[i.name] ?? EMPTY_DRAFT), saved[i.name]));
  const refused = error ? asApiError(error).errors[0]?.extensions?.setting : undefined;

  // A refused setting takes the focus, so a keyboard user lands on what to fix.
  useEffect(() => {
    if (typeof refused === 'string') document.getElementById(`setting-${refused}`)?.focus();
  }, [error]);

  const set = (name: string, draft: Partial<Draft>) => {
    setResult(null);
    setDrafts((d) => ({ ...d, [name]: { text: '', none: false, ...d[name], ...draft } }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const patch = Object.fromEntries(changed.map((i) => [i.name, valueOf(i, drafts[i.name] ?? EMPTY_DRAFT)]));
      if (patch.smtpUrl !== undefined) {
        const problem = hiddenPasswordProblem('smtpUrl', patch.smtpUrl, saved.smtpUrl);
        if (problem) throw problem;
      }
      const updated = await updateAppSettings(appId, patch, names);
      setSaved(updated.settings);
      setDrafts(Object.fromEntries(infos.map((i) => [i.name, draftOf(updated.settings[i.name])])));
      setResult(`Saved ${changed.length} setting${changed.length === 1 ? '' : 's'}: ${changed.map((i) => i.name).join(', ')}. They apply from the next request.`);
    });
  };

  const discard = () => {
    setResult(null);
    setDrafts(Object.fromEntries(infos.map((i) => [i.name, draftOf(saved[i.name])])));
  };

  const known = new Set(GROUPS.flatMap((g) => Object.keys(g.settings)));
  const others = infos.filter((i) => !known.has(i.name));
  const groups: Group[] = [...GROUPS, ...(others.length > 0 ? [{ title: 'Other settings', settings: Object.fromEntries(others.map((i) => [i.name, { label: i.name }])) }] : [])];

  return (
    <>
      <AppHeading app={initial} appId={appId} page="Settings" />
      <p className="lead">
        Limits and behaviour of this app's API, and how it sends mail. Only the settings you change are sent; they apply from the next request,
        on every instance of the server.
      </p>
      <form className="settings-form" onSubmit={submit} aria-label="App settings">
        {groups.map((group) => {
          const members = Object.entries(group.settings).flatMap(([name, presentation]) => {
            const setting = byName.get(name);
            return setting ? [{ setting, presentation }] : [];
          });
          if (members.length === 0) return null;
          return (
            <fieldset key={group.title} className="card settings-group">
              <legend>{group.title}</legend>
              {group.hint && <p className="hint">{group.hint}</p>}
              {members.map(({ setting, presentation }) => (
                <SettingControl
                  key={setting.name}
                  info={setting}
                  presentation={presentation}
                  draft={drafts[setting.name] ?? EMPTY_DRAFT}
                  changed={changed.includes(setting)}
                  refused={refused === setting.name ? asApiError(error).errors[0]?.message : undefined}
                  onChange={(draft) => set(setting.name, draft)}
                />
              ))}
            </fieldset>
          );
        })}
        <div className="save-bar">
          <button type="submit" className="button primary" disabled={busy || changed.length === 0}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
          <button type="button" className="button" onClick={discard} disabled={busy || changed.length === 0}>
            Discard changes
          </button>
          <span className="hint" role="status" aria-live="polite">
            {changed.length > 0 ? `${changed.length} unsaved change${changed.length === 1 ? '' : 's'}` : ''}
          </span>
        </div>
        <ErrorBox error={error} title="The settings were not saved" />
        {result && (
          <p className="success" role="status">
            {result}
          </p>
        )}
      </form>
      {byName.has('smtpUrl') && <TestMailForm appId={appId} unsaved={changed.length > 0} />}
      <OidcProviders appId={appId} />
    </>
  );
}
