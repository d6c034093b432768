// End-to-end: an app's mail settings and the test mail in headless Chromium against a real server
// (embedded store) and real SMTP servers: the server's own (TESSERA_SMTP_URL) and the app's, which
// takes mail only with its password. The password is read back hidden and kept when the form is
// saved again; a test mail shows what the mail server answered; every field goes back to its default.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshotBetween, signIn } from './harness.js';
import type { PageProblems } from './harness.js';
import { Inbox } from '../helpers/inbox.js';

const PASSWORD = 's3cret-Pass';
const OPS = 'ops@shop.test';

let serverInbox: Inbox;
let appInbox: Inbox;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';

const missing = missingPrerequisite();

describe('console: mail settings', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    serverInbox = await new Inbox().start();
    appInbox = await new Inbox({ user: 'shop', pass: PASSWORD }).start();
    server = await startTestServer('embedded', { logLevel: 'warn', mail: { smtpUrl: serverInbox.url(), from: 'Tessera <noreply@tessera.test>' } });
    appId = await createApp(server, 'shop', 'type Product @model { name: String! }');
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await serverInbox?.close();
    await appInbox?.close();
  });

  const field = (label: string) => page.getByLabel(label, { exact: true });
  const save = () => page.getByRole('button', { name: 'Save changes' }).click();
  const settingsAlert = () => page.getByRole('alert').filter({ hasText: 'The settings were not saved' });
  const testMail = () => page.getByRole('region', { name: 'Send a test mail' });

  async function sendTestMail(to: string): Promise<void> {
    await testMail().getByLabel('To').fill(to);
    await testMail().getByRole('button', { name: 'Send test mail' }).click();
    await testMail().getByRole('button', { name: 'Send test mail' }).waitFor();
  }

  it('shows the mail settings empty, each following its default, beside the session lifetime', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/schema`);
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: /Settings · shop/ }).waitFor();
    expect(await field('Session lifetime (refresh token)').inputValue()).toBe(String(30 * 24 * 3600));
    await page.getByText('seconds (30 days)').waitFor();

    const mail = page.getByRole('group', { name: 'Mail', exact: true });
    expect(await field('SMTP server').inputValue()).toBe('');
    expect(await field('Sender').inputValue()).toBe('');
    expect(await mail.innerText()).toContain("Empty: the server's TESSERA_SMTP_URL.");
    expect(await page.locator('#setting-smtpUrl-note').innerText()).toMatch(/shown as \*{8}\. Saving the URL as it is shown keeps the stored password/);
    // The note is part of the field's description, for screen readers too.
    expect(await field('SMTP server').getAttribute('aria-describedby')).toContain('setting-smtpUrl-note');
    const texts = page.getByRole('group', { name: 'Mail texts' });
    expect(await field('Verification mail text').inputValue()).toBe('');
    expect(await texts.getByText('default', { exact: true }).count()).toBe(4);
    expect(await page.getByRole('button', { name: /^Use the default/ }).count()).toBe(0);
  });

  it("sends a test mail through the server's mail settings while the app has none of its own", async () => {
    await sendTestMail(OPS);
    await testMail().getByRole('status').getByText(`The mail server accepted the test mail to ${OPS}.`).waitFor();
    const mail = await serverInbox.next(OPS, 1);
    expect(mail.subject).toBe('Test mail from shop');
    expect(mail.from?.value[0]?.address).toBe('noreply@tessera.test');
  });

  it('refuses a mail text without {{token}} at its field, and saves nothing', async () => {
    await field('Verification mail text').fill('Hello {{username}}, welcome.');
    await page.getByText('1 unsaved change').waitFor();
    await save();
    await settingsAlert().getByText('BAD_USER_INPUT').waitFor();
    expect(await field('Verification mail text').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-verifyEmailText-error').innerText()).toContain('{{token}}');
    expect((await settings()).verifyEmailText).toBeNull();
  });

  it("saves the app's own mail server, sender and texts, and reads the password back hidden", async () => {
    await field('SMTP server').fill(appInbox.url(`shop:${PASSWORD}@`));
    await field('Sender').fill('Shop <hello@shop.test>');
    await field('Verification mail subject').fill('Welcome to {{appName}}');
    await field('Verification mail text').fill('Your code for {{appName}}:\n\n{{token}}\n');
    await page.getByText('4 unsaved changes').waitFor();
    await save();
    await page.getByText('Saved 4 settings: smtpUrl, mailFrom, verifyEmailSubject, verifyEmailText.', { exact: false }).waitFor();
    const hidden = `smtp://shop:********@127.0.0.1:${appInbox.port}`;
    expect(await field('SMTP server').inputValue()).toBe(hidden);
    expect(await settings()).toMatchObject({ smtpUrl: hidden, mailFrom: 'Shop <hello@shop.test>', verifyEmailSubject: 'Welcome to {{appName}}' });
    expect(await page.content()).not.toContain(PASSWORD);
  });

  it('keeps the stored password when the form is saved again: a test mail reaches the server that requires it', async () => {
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /Settings/ }).waitFor();
    expect(await field('SMTP server').inputValue()).toBe(`smtp://shop:********@127.0.0.1:${appInbox.port}`);
    await field('Sender').fill('Shop Team <team@shop.test>');
    await save();
    await page.getByText('Saved 1 setting: mailFrom.', { exact: false }).waitFor();

    await sendTestMail(OPS);
    await testMail().getByRole('status').getByText(`The mail server accepted the test mail to ${OPS}.`).waitFor();
    const mail = await appInbox.next(OPS, 1);
    expect(mail.subject).toBe('Test mail from shop');
    expect(mail.from?.value[0]?.address).toBe('team@shop.test');
    expect(serverInbox.to(OPS)).toHaveLength(1);
    await screenshotBetween(page, page.getByRole('group', { name: 'Mail', exact: true }), testMail(), '26-mail-settings');
  });

  it('refuses an SMTP URL changed around its hidden password before sending it, and says to type the password', async () => {
    await field('SMTP server').fill(`smtp://shop:********@localhost:${appInbox.port}`);
    await testMail().getByText('Save your changes first').waitFor();
    await save();
    await expect.poll(() => settingsAlert().innerText()).toContain('Type the password again');
    expect(await field('SMTP server').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-smtpUrl-error').innerText()).toContain('kept only when the URL is saved as it was shown');
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('setting-smtpUrl');
    expect((await settings()).smtpUrl).toBe(`smtp://shop:********@127.0.0.1:${appInbox.port}`);
    await page.getByRole('button', { name: 'Discard changes' }).click();
  });

  it("shows the mail server's answer when it refuses the test mail", async () => {
    await field('SMTP server').fill(appInbox.url('shop:wrong-password@'));
    await save();
    await page.getByText('Saved 1 setting: smtpUrl.', { exact: false }).waitFor();
    await sendTestMail(OPS);
    const alert = testMail().getByRole('alert').filter({ hasText: 'The test mail was not sent' });
    await alert.getByText('UNAVAILABLE').waitFor();
    expect(await alert.innerText()).toContain('Invalid username or password');
    expect(await alert.innerText()).not.toContain('wrong-password');
    expect(await testMail().getByRole('status').count()).toBe(0);
    expect(appInbox.to(OPS)).toHaveLength(1);
  });

  it("gives every mail setting back to its default, and the server's mail server sends again", async () => {
    for (const label of ['SMTP server', 'Sender', 'Verification mail subject', 'Verification mail text']) {
      await page.getByRole('button', { name: `Use the default for ${label}` }).click();
    }
    await page.getByText('4 unsaved changes').waitFor();
    expect(await field('SMTP server').inputValue()).toBe('');
    await save();
    await page.getByText(/^Saved 4 settings: /).waitFor();
    expect(await settings()).toMatchObject({ smtpUrl: null, mailFrom: null, verifyEmailSubject: null, verifyEmailText: null });
    expect(await page.getByRole('group', { name: 'Mail', exact: true }).getByText('default', { exact: true }).count()).toBe(2);

    await sendTestMail(OPS);
    await testMail().getByRole('status').getByText(`The mail server accepted the test mail to ${OPS}.`).waitFor();
    expect((await serverInbox.next(OPS, 2)).from?.value[0]?.address).toBe('noreply@tessera.test');
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

async function settings(): Promise<Record<string, unknown>> {
  const query = 'query($id: ID!) { app(id: $id) { settings { smtpUrl mailFrom verifyEmailSubject verifyEmailText } } }';
  const { body } = await graphql(`${server.base}/admin/graphql`, server.key, query, { id: appId });
  return body.data.app.settings as Record<string, unknown>;
}
