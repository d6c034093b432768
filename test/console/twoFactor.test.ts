// End-to-end: two-factor login on the users pages, in headless Chromium against a real server
// (embedded store). A user turns it on through the app's API with codes of a real authenticator
// (otpauth); the list and the user's page show who has it on, and "Turn off two-factor login"
// (cancelled once, then confirmed) turns it off, after which the password alone logs in.

import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const PASSWORD = 'correct horse battery';
const CREATE_USER = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
const ids = new Map<string, string>();

const missing = missingPrerequisite();

describe('console: two-factor login', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'forum', 'type Note @model { text: String }');
    for (const username of ['ada', 'grace']) {
      const { body } = await api(CREATE_USER, { i: { username, password: PASSWORD } });
      ids.set(username, body.data.createUser.changedUser.id as string);
    }
    // Ada turns two-factor login on, as a user of the app would, with her authenticator's code.
    const token = (await api(LOGIN, { i: { username: 'ada', password: PASSWORD } }, null)).body.data.loginUser.token as string;
    const { secret } = (await api('mutation { enrollTotp(input: {}) { secret } }', {}, token)).body.data.enrollTotp as { secret: string };
    const code = TOTP.generate({ secret: Secret.fromBase32(secret) });
    await api('mutation($i: ConfirmTotpInput!) { confirmTotp(input: $i) { recoveryCodes } }', { i: { code } }, token);
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const fields = () => page.getByRole('region', { name: 'Fields' });
  const turnOff = () => page.getByRole('button', { name: 'Turn off two-factor login' });

  it('lists whether each user has two-factor login on', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/users`);
    await page.getByRole('status').getByText('2 users').waitFor();
    const headers = await page.locator('thead th').allInnerTexts();
    const column = headers.indexOf('two-factor');
    expect(column).toBeGreaterThan(0);
    await expect.poll(() => cellOf('ada', column)).toBe('on');
    expect(await cellOf('grace', column)).toBe('off');
  });

  it('offers no way to turn it off for a user who does not have it', async () => {
    await userPage('grace');
    await expect.poll(() => fields().innerText()).toMatch(/two-factor login\s+off/);
    expect(await turnOff().count()).toBe(0);
  });

  it('turns off the two-factor login of a user after a confirmation; the password alone then logs in', async () => {
    expect(await loginCodes('ada')).toEqual(['MFA_REQUIRED']);
    await userPage('ada');
    await expect.poll(() => fields().innerText()).toMatch(/two-factor login\s+on since .+, 10 recovery codes left/);
    await turnOff().click();
    const dialog = page.getByRole('dialog', { name: 'Turn off two-factor login of ada?' });
    expect(await dialog.innerText()).toContain('lost their phone');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await loginCodes('ada')).toEqual(['MFA_REQUIRED']);

    await turnOff().click();
    await dialog.getByRole('button', { name: 'Turn off two-factor login' }).click();
    await page.getByRole('status').getByText('Two-factor login of ada is off', { exact: false }).waitFor();
    expect(await dialog.count()).toBe(0);
    await expect.poll(() => fields().innerText()).toMatch(/two-factor login\s+off/);
    expect(await turnOff().count()).toBe(0);
    expect(await loginCodes('ada')).toEqual([]);
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

async function userPage(username: string): Promise<void> {
  await page.goto(`${server.base}/console/apps/${appId}/users/${encodeURIComponent(ids.get(username) ?? '')}`);
  await page.getByRole('heading', { level: 1, name: new RegExp(`User ${username}`) }).waitFor();
}

/** A request to the app's API, as the platform key unless another token is given; any error fails the test. */
async function api(query: string, variables: Record<string, unknown> = {}, token: string | null = server.key) {
  const reply = await graphql(`${server.base}/graphql/${appId}`, token, query, variables);
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return reply;
}

/** The error codes of a login with the password alone (none when it logs in). */
async function loginCodes(username: string): Promise<string[]> {
  const { body } = await graphql(`${server.base}/graphql/${appId}`, null, LOGIN, { i: { username, password: PASSWORD } });
  return ((body.errors ?? []) as { extensions: { code: string } }[]).map((e) => e.extensions.code);
}

/** The text of one cell of a user's row in the list. */
async function cellOf(username: string, column: number): Promise<string> {
  const cells = await page.getByRole('row').filter({ has: page.getByRole('link', { name: username, exact: true }) }).locator('td').allInnerTexts();
  return (cells[column] ?? '').trim();
}
