// End-to-end: the OpenID providers on the settings page, in headless Chromium against a real
// server (embedded store) and a real OpenID provider on this machine. A provider is added from
// its issuer's discovery document with its secret in a password field (never shown back); an
// issuer whose discovery fails is refused at the issuer field, a taken name as CONFLICT; a
// provider is removed after a confirmation, cancelled once.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcRelyingParty } from '../../src/oidc/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { startOidcProvider } from '../helpers/oidcProvider.js';
import type { TestProvider } from '../helpers/oidcProvider.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshotOf, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const CLIENT = { clientId: 'forum-web', clientSecret: 'a-client-secret-5f0e7a', redirectUris: ['https://forum.example.com/callback'] };
const LIST = 'query($id: ID!) { app(id: $id) { oidcProviders { name issuer clientId scopes } } }';

let provider: TestProvider;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';

const missing = missingPrerequisite();

describe('console: OpenID providers', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    provider = await startOidcProvider([CLIENT], {});
    // The provider listens on 127.0.0.1, which the server reaches only when told it may.
    const oidc = new OidcRelyingParty({ secrets: new SecretBox(generateSecretKey()), outbound: { allowPrivate: true } });
    server = await startTestServer('embedded', { logLevel: 'warn', oidc });
    appId = await createApp(server, 'forum', 'type Note @model { text: String }');
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
    await page.goto(`${server.base}/console/apps/${appId}/settings`);
    await section().getByText('No providers yet.').waitFor();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  const section = () => page.getByRole('region', { name: 'Sign in with OpenID Connect' });
  const form = () => page.getByRole('form', { name: 'Add an OpenID provider' });
  const fill = async (values: Record<string, string>) => {
    for (const [label, value] of Object.entries(values)) await form().getByLabel(label, { exact: true }).fill(value);
  };
  const listed = async () => (await graphql(`${server.base}/admin/graphql`, server.key, LIST, { id: appId })).body.data.app.oidcProviders;

  it('refuses an issuer whose discovery fails, at the issuer field', async () => {
    await fill({ Name: 'corp', Issuer: 'http://127.0.0.1:1', 'Client id': CLIENT.clientId, 'Client secret': CLIENT.clientSecret });
    await form().getByRole('button', { name: 'Add provider' }).click();
    const alert = form().getByRole('alert').filter({ hasText: 'The provider was not added' });
    await alert.getByText('BAD_USER_INPUT').waitFor();
    const issuer = form().getByLabel('Issuer', { exact: true });
    expect(await issuer.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#oidc-issuer-error').innerText()).toContain('127.0.0.1:1');
    expect(await page.evaluate('document.activeElement?.id')).toBe('oidc-issuer');
    expect(await listed()).toEqual([]);
  });

  it('adds a provider from its discovery document, keeping the secret out of the page', async () => {
    await fill({ Issuer: provider.issuer, Scopes: 'openid email' });
    expect(await form().getByLabel('Client secret', { exact: true }).getAttribute('type')).toBe('password');
    await form().getByRole('button', { name: 'Add provider' }).click();
    await section().getByRole('status').getByText(`Added corp: clients send users to ${provider.issuer}/auth.`).waitFor();
    // The notice comes with the answer; the list is reloaded after it, so wait for the row.
    const row = section().getByRole('row').filter({ hasText: 'corp' });
    await row.waitFor();
    expect(await row.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['corp', provider.issuer, CLIENT.clientId, 'openid email', `${provider.issuer}/auth`]));
    // The form is empty again, and the secret is nowhere in the page.
    expect(await form().getByLabel('Client secret', { exact: true }).inputValue()).toBe('');
    expect(await form().getByLabel('Issuer', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    expect(await page.content()).not.toContain(CLIENT.clientSecret);
    expect(await listed()).toEqual([{ name: 'corp', issuer: provider.issuer, clientId: CLIENT.clientId, scopes: ['openid', 'email'] }]);

    await fill({ Name: 'staff', Issuer: provider.issuer, 'Client id': CLIENT.clientId, 'Client secret': CLIENT.clientSecret });
    await form().getByRole('button', { name: 'Add provider' }).click();
    await section().getByRole('row').filter({ hasText: 'staff' }).waitFor();
    expect(await listed()).toHaveLength(2);
    await screenshotOf(section(), '28-oidc-providers');
  });

  it('answers CONFLICT for a name the app has', async () => {
    await fill({ Name: 'corp', Issuer: provider.issuer, 'Client id': CLIENT.clientId, 'Client secret': CLIENT.clientSecret });
    await form().getByRole('button', { name: 'Add provider' }).click();
    await form().getByRole('alert').getByText('CONFLICT').waitFor();
    expect(await listed()).toHaveLength(2);
  });

  it('removes a provider after a confirmation', async () => {
    await section().getByRole('button', { name: 'Remove staff' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove staff?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(await listed()).toHaveLength(2);

    await section().getByRole('button', { name: 'Remove staff' }).click();
    await dialog.getByRole('button', { name: 'Remove provider' }).click();
    await section().getByRole('status').getByText('Removed staff.', { exact: false }).waitFor();
    // The notice comes with the answer; the list is reloaded after it, so wait for the row to go.
    await section().getByRole('row').filter({ hasText: 'staff' }).waitFor({ state: 'detached' });
    expect((await listed()).map((p: { name: string }) => p.name)).toEqual(['corp']);
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});
