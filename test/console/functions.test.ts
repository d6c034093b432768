// End-to-end: the Functions page, in headless Chromium against a real server on each store and
// a real `node:http` endpoint that checks every call's signature. An EVENT function is created
// (its secret shown once, in a dialog, and nowhere after), a write through the app's API shows
// up DELIVERED; a failing endpoint shows PENDING with the last status code and error, then DEAD;
// a redelivery once the endpoint is back shows DELIVERED. Disabling, rotating the secret and
// deleting follow; a server refusal is shown at the field it names (no operation; a private
// address on a server that refuses them); another app's page shows none of it.

import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { FAST, REDELIVER, Receiver, SCHEMA, codeOf, deliveries, startFunctionsServer, waitForDeliveries } from '../functions/harness.js';
import { launchBrowser, missingPrerequisite, openPage, screenshot, screenshotBetween, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const FUNCTIONS = 'query($id: ID!) { app(id: $id) { functions { name kind url operations headers { name } timeoutMs enabled order } } }';
const HEADER_VALUE = 'header-value-7d1c9e0b';
/** Long enough to see a failing delivery pending in the page, short enough to see it die within a test. */
const DEAD_AFTER_MS = 8_000;

const missing = missingPrerequisite();

describe.each(STORE_KINDS)('console: functions (%s)', (kind) => {
  let server: TestServer;
  let strict: TestServer;
  let app: TestApp;
  let other: TestApp;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  const secrets: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    receiver = await Receiver.start();
    server = await startFunctionsServer(kind, { schedule: { ...FAST, deadAfterMs: DEAD_AFTER_MS } });
    // A server that refuses private addresses, as production ones do.
    strict = await startFunctionsServer(kind, { allowPrivate: false, logLevel: 'warn' });
    app = await createTestApp(server, SCHEMA, 'blog');
    other = await createTestApp(server, SCHEMA, 'shop');
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
    await page.goto(`${server.base}/console/apps/${app.id}/functions`);
    await page.getByRole('heading', { level: 1, name: /Functions/ }).waitFor();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await strict?.close();
    await receiver?.down();
  });

  const form = () => page.getByRole('form', { name: 'Create a function' });
  const table = () => page.getByRole('table', { name: 'The app’s functions, by order then name' });
  const row = (name: string) => table().getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  const deliveriesOf = (name: string) => page.getByRole('region', { name: `Deliveries of ${name}` });
  const deliveryRows = (name: string) => deliveriesOf(name).getByRole('row').filter({ has: page.locator('td') });
  /** The listed deliveries of that status (its badge, not the words of an empty list). */
  const withStatus = (rows: Locator, status: string) => rows.filter({ has: page.locator('.delivery-status', { hasText: new RegExp(`^${status}`) }) });
  const listed = async (appId = app.id) => (await admin(server, FUNCTIONS, { id: appId })).body.data.app.functions;
  const operationBox = (name: string) => form().getByRole('checkbox', { name, exact: true });
  const dialogSecret = async (dialog: Locator) => dialog.getByLabel('Signing secret', { exact: true }).inputValue();

  it('is an app page of its own, with no functions yet', async () => {
    const link = page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Functions' });
    expect(await link.getAttribute('aria-current')).toBe('page');
    await page.getByText('No functions yet.').waitFor();
    expect(await page.title()).toBe(`Functions · ${app.id} · Tessera console`);
  });

  it('offers every mutation to a BEFORE function, and only those writing objects or edges to an EVENT one', async () => {
    await operationBox('createPost').waitFor();
    const offered = async () => form().locator('.operations-list code').allInnerTexts();
    const event = await offered();
    expect(event).toEqual(expect.arrayContaining(['createPost', 'updatePost', 'deletePost', 'addToPostTagsConnection', 'removeFromPostTagsConnection', 'createUser']));
    expect(event).not.toContain('loginUser');
    expect(event).not.toContain('enrollTotp');
    await form().getByLabel('Kind').selectOption('BEFORE');
    expect(await offered()).toEqual(expect.arrayContaining(['createPost', 'loginUser', 'enrollTotp']));
    await form().getByLabel('Kind').selectOption('RESOLVER');
    expect(await form().locator('.operations-list').count()).toBe(0);
    await form().getByLabel('Kind').selectOption('EVENT');
    await form().getByLabel('Filter the mutations').fill('post');
    expect((await offered()).every((name) => name.toLowerCase().includes('post'))).toBe(true);
    await form().getByLabel('Filter the mutations').fill('');
  });

  it('shows the server’s refusal at the field it names', async () => {
    await form().getByLabel('Name', { exact: true }).fill('hook');
    await form().getByLabel('URL').fill(receiver.url);
    await form().getByRole('button', { name: 'Create function' }).click();
    const alert = form().getByRole('alert').filter({ hasText: 'The function was not created' });
    await alert.getByText('BAD_USER_INPUT').waitFor();
    const filter = form().getByLabel('Filter the mutations');
    expect(await filter.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#fn-operations-error').innerText()).toContain('at least one operation');
    expect(await page.evaluate('document.activeElement?.id')).toBe('fn-operations');
    expect(await listed()).toEqual([]);
  });

  it('creates an EVENT function and shows its secret once', async () => {
    await operationBox('createPost').check();
    await operationBox('createTag').check();
    await form().getByRole('button', { name: 'Add a header' }).click();
    await form().getByLabel('Header 1 name').fill('X-Api-Key');
    await form().getByLabel('Header 1 value').fill(HEADER_VALUE);
    await form().getByLabel('Timeout (ms)').fill('2000');
    await form().getByLabel('Order').fill('5');
    await form().getByRole('button', { name: 'Create function' }).click();

    const dialog = page.getByRole('dialog', { name: 'Function "hook" created' });
    await dialog.waitFor();
    const secret = await dialogSecret(dialog);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    secrets.push(secret);
    receiver.secret = secret;
    await dialog.getByRole('button', { name: 'Copy Signing secret' }).click();
    await dialog.getByRole('button', { name: 'Copy Signing secret' }).getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    if (kind === 'embedded') await screenshot(page, '30-function-secret', false);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await dialog.count()).toBe(0);

    await row('hook').waitFor();
    expect(await row('hook').locator('td').allInnerTexts()).toEqual(['EVENT', receiver.url, 'createPost createTag', 'X-Api-Key', 'On', '5', '2,000 ms', expect.any(String)]);
    expect(await listed()).toEqual([
      { name: 'hook', kind: 'EVENT', url: receiver.url, operations: ['createPost', 'createTag'], headers: [{ name: 'X-Api-Key' }], timeoutMs: 2000, enabled: true, order: 5 },
    ]);
    // Neither the secret nor the header's value is anywhere in the page or the server's logs; the form is empty again.
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain(HEADER_VALUE);
    expect(JSON.stringify(server.logs)).not.toContain(secret);
    expect(JSON.stringify(server.logs)).not.toContain(HEADER_VALUE);
    expect(await form().getByLabel('Name', { exact: true }).inputValue()).toBe('');
    expect(await form().getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBeNull();
  });

  it('answers CONFLICT at the name for a name the app has', async () => {
    await form().getByLabel('Name', { exact: true }).fill('hook');
    await form().getByLabel('Kind').selectOption('BEFORE');
    await form().getByLabel('URL').fill(receiver.url);
    await operationBox('loginUser').check();
    await form().getByRole('button', { name: 'Create function' }).click();
    await form().getByRole('alert').getByText('CONFLICT').waitFor();
    expect(await form().getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await listed()).toHaveLength(1);
    await form().getByLabel('Name', { exact: true }).fill('');
    await form().getByLabel('URL').fill('');
    await operationBox('loginUser').uncheck();
  });

  it('shows a write through the app’s API delivered, signed with the secret shown', async () => {
    await app.data('mutation { createPost(input: { title: "first" }) { changedPost { id } } }');
    await row('hook').getByRole('button', { name: 'Deliveries of hook' }).click();
    expect(page.url()).toContain('?function=hook');
    await withStatus(deliveryRows('hook'), 'DELIVERED').waitFor();
    const cells = await deliveryRows('hook').first().locator('td').allInnerTexts();
    expect(cells.slice(1, 6)).toEqual(['createPost', 'DELIVERED', '1', '200', '—']);
    const [received] = await receiver.waitFor(1);
    expect(receiver.received[0]?.verified).toBe(true);
    expect(receiver.received[0]?.headers['x-api-key']).toBe(HEADER_VALUE);
    expect(received.event.after.title).toBe('first');
  });

  it('shows a failing delivery pending with the last status and error, then dead; redelivers it once the endpoint is back', async () => {
    receiver.status = 500;
    await app.data('mutation { createTag(input: { name: "failing" }) { changedTag { id } } }');
    await waitForDeliveries(server, app.id, (l) => l[0]?.operation === 'createTag' && l[0]?.attempts >= 1 && l[0]?.status === 'PENDING');
    await deliveriesOf('hook').getByRole('button', { name: 'Refresh', exact: true }).click();
    const failing = deliveryRows('hook').filter({ hasText: 'createTag' });
    await failing.getByText('the endpoint answered 500').waitFor();
    const cells = await failing.locator('td').allInnerTexts();
    expect(cells[2]).toMatch(/^PENDING/);
    expect(cells[4]).toBe('500');
    expect(cells[6]).not.toBe('—');

    // The status filter: the dead one alone, once its window is over (the page refreshes itself).
    await deliveriesOf('hook').getByLabel('Status').selectOption('DEAD');
    await withStatus(deliveryRows('hook'), 'DEAD').waitFor({ timeout: DEAD_AFTER_MS * 3 });
    expect(await deliveryRows('hook').count()).toBe(1);
    const dead = await deliveryRows('hook').first().locator('td').allInnerTexts();
    expect(dead.slice(1, 3)).toEqual(['createTag', 'DEAD']);
    expect(dead[6]).toBe('—');
    await deliveriesOf('hook').getByLabel('Status').selectOption('DELIVERED');
    await deliveryRows('hook').filter({ hasText: 'createPost' }).waitFor();
    expect(await deliveryRows('hook').count()).toBe(1);

    receiver.status = 200;
    const before = receiver.received.length;
    await deliveriesOf('hook').getByLabel('Status').selectOption('');
    const [deadOne] = await deliveries(server, app.id, 'hook', 'DEAD');
    await deliveriesOf('hook').getByRole('button', { name: `Redeliver ${deadOne.id}` }).click();
    await deliveriesOf('hook').getByRole('status').getByText(`Delivery ${deadOne.id} (createTag) is sent again now.`).waitFor();
    await withStatus(deliveryRows('hook').filter({ hasText: 'createTag' }), 'DELIVERED').waitFor();
    expect(await deliveryRows('hook').count()).toBe(2);
    const redelivered = receiver.received.slice(before);
    expect(redelivered.some((r) => r.eventId === deadOne.id && r.verified)).toBe(true);
    if (kind === 'embedded') await screenshotBetween(page, page.getByRole('heading', { level: 1 }), deliveriesOf('hook'), '29-functions');
  });

  it('disables and enables a function; a disabled one is not told of writes', async () => {
    const toggle = row('hook').getByRole('switch', { name: 'hook enabled' });
    // A controlled switch: it turns once the server has answered.
    await toggle.click();
    await page.getByRole('status').getByText('hook is disabled', { exact: false }).waitFor();
    await row('hook').getByText('Off').waitFor();
    expect(await toggle.isChecked()).toBe(false);
    expect((await listed())[0].enabled).toBe(false);

    // The outbox is written with the write: a write while disabled has no delivery, at once.
    const count = (await deliveries(server, app.id, 'hook')).length;
    await app.data('mutation { createPost(input: { title: "while disabled" }) { changedPost { id } } }');
    expect(await deliveries(server, app.id, 'hook')).toHaveLength(count);

    await toggle.click();
    await row('hook').getByText('On').waitFor();
    expect(await toggle.isChecked()).toBe(true);
    expect((await listed())[0].enabled).toBe(true);
    await app.data('mutation { createPost(input: { title: "enabled again" }) { changedPost { id } } }');
    await deliveriesOf('hook').getByRole('button', { name: 'Refresh', exact: true }).click();
    await withStatus(deliveryRows('hook'), 'DELIVERED').nth(count).waitFor();
    expect(await deliveryRows('hook').count()).toBe(count + 1);
    expect(receiver.bodies('createPost').map((b) => b.event.after.title)).toEqual(['first', 'enabled again']);
  });

  it('rotates the secret after a confirmation, showing the new one once', async () => {
    await row('hook').getByRole('button', { name: 'Rotate the secret of hook' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the secret of hook?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await confirm.count()).toBe(0);

    await row('hook').getByRole('button', { name: 'Rotate the secret of hook' }).click();
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Function "hook" rotated' });
    await dialog.waitFor();
    const secret = await dialogSecret(dialog);
    expect(secrets).not.toContain(secret);
    secrets.push(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    expect(JSON.stringify(server.logs)).not.toContain(secret);

    // Calls are signed with the new secret from now on.
    receiver.secret = secret;
    const before = receiver.received.length;
    await app.data('mutation { createPost(input: { title: "after rotation" }) { changedPost { id } } }');
    await receiver.waitFor(before + 1);
    expect(receiver.received.slice(before).every((r) => r.verified)).toBe(true);
  });

  it('shows another app none of this app’s functions, and redelivers none of them through it', async () => {
    await page.goto(`${server.base}/console/apps/${other.id}/functions?function=hook`);
    await page.getByRole('heading', { level: 1, name: /Functions/ }).waitFor();
    await page.getByText('No functions yet.').waitFor();
    expect(await page.getByRole('region', { name: /Deliveries of/ }).count()).toBe(0);
    // What the page would send for a delivery of the first app under the other app's id.
    const [delivery] = await deliveries(server, app.id, 'hook');
    const reply = await admin(server, REDELIVER, { i: { appId: other.id, deliveryId: delivery.id } });
    expect(codeOf(reply.body)).toBe('NOT_FOUND');
    expect(await listed(other.id)).toEqual([]);
    await page.goto(`${server.base}/console/apps/${app.id}/functions`);
    await row('hook').waitFor();
  });

  it('deletes a function after a confirmation', async () => {
    await row('hook').getByRole('button', { name: 'Delete hook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete hook?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(await listed()).toHaveLength(1);

    await row('hook').getByRole('button', { name: 'Delete hook' }).click();
    await dialog.getByRole('button', { name: 'Delete function' }).click();
    await page.getByRole('status').getByText('Deleted hook, with its deliveries.').waitFor();
    await page.getByText('No functions yet.').waitFor();
    expect(await listed()).toEqual([]);
  });

  it('refuses a private address at the URL field on a server that does not allow them', async () => {
    const strictApp = await createTestApp(strict, SCHEMA, 'locked');
    const strictPage = await context.newPage();
    try {
      await signIn(strictPage, strict);
      await strictPage.goto(`${strict.base}/console/apps/${strictApp.id}/functions`);
      const strictForm = strictPage.getByRole('form', { name: 'Create a function' });
      await strictForm.getByLabel('Name', { exact: true }).fill('local');
      await strictForm.getByLabel('URL').fill('http://127.0.0.1:9/hook');
      await strictForm.getByRole('checkbox', { name: 'createPost', exact: true }).check();
      await strictForm.getByRole('button', { name: 'Create function' }).click();
      await strictForm.getByRole('alert').getByText('BAD_USER_INPUT').waitFor();
      expect(await strictForm.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
      expect(await strictPage.locator('#fn-url-error').innerText()).toMatch(/^url: /);
      expect(await strictPage.evaluate('document.activeElement?.id')).toBe('fn-url');
      expect((await admin(strict, FUNCTIONS, { id: strictApp.id })).body.data.app.functions).toEqual([]);
    } finally {
      await strictPage.close();
    }
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});
