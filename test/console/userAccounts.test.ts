// End-to-end: what the users pages do with accounts, in headless Chromium against a real server
// (embedded store) that mails through a real SMTP server. The list and a user's page show each
// address and whether it is verified; "Send verification mail" mails a code that verifies it;
// a refusing mail server is shown with its code; "End all sessions" ends every session of the
// user after a confirmation, so their token answers 401 and their refresh token is refused.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';
import { Inbox, codeIn } from '../helpers/inbox.js';

const PASSWORD = 'correct horse battery';
const CREATE_USER = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token refreshToken } }';
const REFRESH = 'mutation($i: RefreshUserTokenInput!) { refreshUserToken(input: $i) { token refreshToken } }';

let inbox: Inbox;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
const ids = new Map<string, string>();

const missing = missingPrerequisite();

describe('console: user accounts', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    inbox = await new Inbox().start();
    server = await startTestServer('embedded', { logLevel: 'warn', mail: { smtpUrl: inbox.url(), from: 'Forum <noreply@forum.test>' } });
    appId = await createApp(server, 'forum', 'type Note @model { text: String }');
    for (const [username, email] of [
      ['ada', 'ada@lovelace.example'],
      ['grace', 'Grace@Hopper.example'],
      ['linus', null],
    ] as const) {
      const { body } = await api(CREATE_USER, { i: { username, password: PASSWORD, email } });
      ids.set(username, body.data.createUser.changedUser.id as string);
    }
    // Ada verifies her address, as a user of the app would.
    await api('mutation($i: RequestEmailVerificationInput!) { requestEmailVerification(input: $i) { clientMutationId } }', { i: { userId: ids.get('ada') } });
    await api('mutation($i: VerifyEmailInput!) { verifyEmail(input: $i) { clientMutationId } }', { i: { token: codeIn(await inbox.next('ada@lovelace.example', 1)) } }, null);
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await inbox?.close();
  });

  const userPage = async (username: string) => {
    await page.goto(`${server.base}/console/apps/${appId}/users/${encodeURIComponent(ids.get(username) ?? '')}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(`User ${username}`) }).waitFor();
  };
  const fields = () => page.getByRole('region', { name: 'Fields' });

  it('lists each user with their address and whether it is verified', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/users`);
    await page.getByRole('status').getByText('3 users').waitFor();
    const headers = await page.locator('thead th').allInnerTexts();
    expect(headers.slice(0, 3)).toEqual(['username', 'email', 'emailVerified']);
    expect(await row('ada')).toEqual(['ada', 'ada@lovelace.example', 'verified']);
    expect(await row('grace')).toEqual(['grace', 'Grace@Hopper.example', 'not verified']);
    expect(await row('linus')).toEqual(['linus', '—', '—']);
  });

  it('sends the verification mail from the user page; its code verifies the address', async () => {
    await page.getByRole('link', { name: 'grace', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: /User grace/ }).waitFor();
    expect(await fields().innerText()).toMatch(/emailVerified\s+not verified/);
    await page.getByRole('button', { name: 'Send verification mail' }).click();
    await page.getByRole('status').getByText('A verification mail is on its way to Grace@Hopper.example', { exact: false }).waitFor();

    const mail = await inbox.next('grace@hopper.example', 1);
    expect(mail.subject).toBe('Confirm your address for forum');
    expect(mail.text).toContain('Hello grace');
    const verified = await api('mutation($i: VerifyEmailInput!) { verifyEmail(input: $i) { user { username emailVerified } } }', { i: { token: codeIn(mail) } }, null);
    expect(verified.body.data.verifyEmail.user).toEqual({ username: 'grace', emailVerified: true });
    await page.reload();
    await expect.poll(() => fields().innerText()).toMatch(/emailVerified\s+verified/);
  });

  it('offers no verification mail to a user without an address', async () => {
    await userPage('linus');
    const button = page.getByRole('button', { name: 'Send verification mail' });
    expect(await button.isDisabled()).toBe(true);
    expect(await page.getByText('linus has no email address to verify.').isVisible()).toBe(true);
    expect(await button.getAttribute('aria-describedby')).toBe('no-email-hint');
  });

  it('shows the coded error when the mail server cannot take the mail', async () => {
    await admin('mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId, settings: { smtpUrl: 'smtp://127.0.0.1:1' } } });
    try {
      await userPage('ada');
      await page.getByRole('button', { name: 'Send verification mail' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'The verification mail was not sent' });
      await alert.getByText('UNAVAILABLE').waitFor();
      expect(await page.getByRole('status').filter({ hasText: 'on its way' }).count()).toBe(0);
    } finally {
      await admin('mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId, settings: { smtpUrl: null } } });
    }
    expect(inbox.to('ada@lovelace.example')).toHaveLength(1);
  });

  it("ends every session of a user after a confirmation: their token answers 401, their refresh token is refused", async () => {
    const phone = await login('ada');
    const laptop = await login('ada');
    // A refreshed session is still one session.
    const refreshed = await refresh(laptop.refreshToken);
    expect(refreshed.token).toBeTruthy();
    expect(await viewerUsername(phone.token)).toBe('ada');
    expect(await viewerUsername(refreshed.token ?? '')).toBe('ada');
    const grace = await login('grace');

    await userPage('ada');
    await page.getByRole('button', { name: 'End all sessions' }).click();
    const dialog = page.getByRole('dialog', { name: 'End every session of ada?' });
    expect(await dialog.innerText()).toContain('log in again with their password');
    // Cancel ends nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await viewerUsername(phone.token)).toBe('ada');

    await page.getByRole('button', { name: 'End all sessions' }).click();
    await dialog.getByRole('button', { name: 'End all sessions' }).click();
    await page.getByRole('status').getByText('Ended 2 sessions of ada.', { exact: false }).waitFor();
    expect(await dialog.count()).toBe(0);
    await screenshot(page, '27-user-sessions');

    expect(await viewerUsername(phone.token)).toBe(401);
    expect(await viewerUsername(refreshed.token ?? '')).toBe(401);
    for (const refreshToken of [phone.refreshToken, refreshed.refreshToken ?? '']) {
      const refused = await refresh(refreshToken);
      expect(refused.token).toBeNull();
      expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    }
    // Other users keep their sessions, and ada logs in again with her password.
    expect(await viewerUsername(grace.token)).toBe('grace');
    expect(await viewerUsername((await login('ada')).token)).toBe('ada');
  });

  it('says so when a user had no session left to end', async () => {
    await userPage('linus');
    await page.getByRole('button', { name: 'End all sessions' }).click();
    await page.getByRole('dialog', { name: 'End every session of linus?' }).getByRole('button', { name: 'End all sessions' }).click();
    await page.getByRole('status').getByText('Ended 0 sessions of linus.', { exact: false }).waitFor();
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

/** A request to the app's API, as the platform key unless another token is given; any error fails the test. */
async function api(query: string, variables: Record<string, unknown> = {}, token: string | null = server.key) {
  const reply = await graphql(`${server.base}/graphql/${appId}`, token, query, variables);
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return reply;
}

async function admin(query: string, variables: Record<string, unknown>) {
  const reply = await graphql(`${server.base}/admin/graphql`, server.key, query, variables);
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return reply;
}

async function login(username: string): Promise<{ token: string; refreshToken: string }> {
  const { body } = await api(LOGIN, { i: { username, password: PASSWORD } }, null);
  return body.data.loginUser as { token: string; refreshToken: string };
}

async function refresh(refreshToken: string): Promise<{ token: string | null; refreshToken: string | null; codes: string[] }> {
  const { body } = await graphql(`${server.base}/graphql/${appId}`, null, REFRESH, { i: { refreshToken } });
  const codes = ((body.errors ?? []) as { extensions: { code: string } }[]).map((e) => e.extensions.code);
  return { token: body.data?.refreshUserToken?.token ?? null, refreshToken: body.data?.refreshUserToken?.refreshToken ?? null, codes };
}

/** The username a user token stands for, or the HTTP status when it is refused. */
async function viewerUsername(token: string): Promise<string | number> {
  const { status, body } = await graphql(`${server.base}/graphql/${appId}`, token, '{ viewer { user { username } } }');
  return status === 200 ? (body.data.viewer.user.username as string) : status;
}

/** The first three cells of a user's row in the list. */
async function row(username: string): Promise<string[]> {
  const cells = await page.getByRole('row').filter({ has: page.getByRole('link', { name: username, exact: true }) }).locator('td').allInnerTexts();
  return cells.slice(0, 3).map((c) => c.trim());
}
