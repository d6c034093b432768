// End-to-end: an app's traffic page in headless Chromium against a real server (embedded store).
// Real clients use the app's API — queries, mutations, a user, a validation error, a refused
// credential — and the page shows those operations with their names and outcomes, charts and a
// summary whose totals match, narrows the log by outcome, follows new traffic, and shows an
// empty state for an app nobody has used.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type Product @model @permission(scope: EVERYONE, read: true) {
  name: String!
  price: Int
}
`;

/** One sent operation: what the log should show for it. */
interface Sent {
  name: string | null;
  outcome: string;
  status: number;
  caller: 'anonymous' | 'user' | 'admin';
  requestId: string;
}

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
let quietAppId = '';
let userId = '';
/** Oldest first. */
const sent: Sent[] = [];

const missing = missingPrerequisite();

describe('console: app traffic', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'shop', SCHEMA);
    quietAppId = await createApp(server, 'quiet', SCHEMA);

    const admin = `Bearer ${server.key}`;
    for (const name of ['Lamp', 'Desk']) {
      await send('mutation AddProduct($i: CreateProductInput!) { createProduct(input: $i) { changedProduct { id } } }', { i: { name, price: 10 } }, admin);
    }
    const signup = await send('mutation SignUp($i: CreateUserInput!) { createUser(input: $i) { token changedUser { id } } }', { i: { username: 'ann', password: 'correct horse battery' } });
    userId = signup.data.createUser.changedUser.id as string;
    const token = signup.data.createUser.token as string;
    for (let i = 0; i < 3; i += 1) await send('query ListProducts { viewer { allProducts { edges { node { name price } } } } }');
    await send('query MyProducts { viewer { allProducts { edges { node { name } } } } }', {}, `Bearer ${token}`);
    await send('query Broken { viewer { noSuchField } }');
    await send('{ __typename }', {}, 'Bearer not-a-token');

    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('shows an empty state for an app without traffic', async () => {
    await page.goto(`${server.base}/console/apps/${quietAppId}/traffic`);
    await page.getByRole('heading', { level: 1, name: /Traffic · quiet/ }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'No traffic yet' }).waitFor();
    expect(await page.getByText(`${server.base}/graphql/${quietAppId}`).count()).toBe(1);
    expect(await page.getByRole('table').count()).toBe(0);
    expect(await page.getByRole('img').count()).toBe(0);
  });

  it('opens from the app navigation with a summary whose totals match what was sent', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/schema`);
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Traffic' }).click();
    await page.getByRole('heading', { level: 1, name: /Traffic · shop/ }).waitFor();
    expect(await page.getByRole('radio', { name: '1 hour' }).isChecked()).toBe(true);
    const summary = page.getByRole('region', { name: 'Last 1 hour' });
    expect(await stat('Operations')).toBe(String(sent.length));
    const errors = sent.filter((s) => s.outcome !== 'ok').length;
    expect(errors).toBe(2);
    expect(await stat('Errors')).toBe(`2 (${Number(((errors / sent.length) * 100).toFixed(1))} % error rate)`);
    expect(await stat('Failures')).toBe('0');
    expect(await stat('Worst p95')).toMatch(/^≤ \d+(\.\d+)? (ms|s) \(at \d{1,2}:\d\d( [AP]M)?\)$/);
    // The traffic may straddle a minute's end: the busiest minute has some of it, or all.
    const busiest = /^(\d+) \(at \d{1,2}:\d\d( [AP]M)?\)$/.exec(await stat('Busiest minute'));
    expect(Number(busiest?.[1])).toBeGreaterThanOrEqual(sent.length / 2);
    expect(Number(busiest?.[1])).toBeLessThanOrEqual(sent.length);
    expect(await summary.getByRole('img').count()).toBe(3);
  });

  it('draws the three charts with a non-empty series each, and the same figures as a table', async () => {
    const operations = page.getByRole('img', { name: /^Operations per minute\./ });
    expect(await operations.getAttribute('aria-label')).toContain(`${sent.length} operations in the last 1 hour`);
    expect(await page.getByRole('img', { name: /^Errors per minute\. 2 operations with errors, 0 failures/ }).count()).toBe(1);
    expect(await page.getByRole('img', { name: /^Latency per minute\. p50 and p95 on a log scale; the worst p95 was ≤/ }).count()).toBe(1);
    // Each series drawn has at least one bar or step; failures, none.
    const d = (series: string) => page.locator(`svg [data-series="${series}"]`).getAttribute('d');
    for (const series of ['Operations', 'Errors', 'p50', 'p95']) expect(await d(series)).toMatch(/^M/);
    expect(await d('Failures (INTERNAL, UNAVAILABLE)')).toBe('');
    // Axes are labelled: counts on the left, times below.
    expect(await operations.locator('.chart-axis text').allTextContents()).toEqual(expect.arrayContaining(['0', expect.stringMatching(/\d:\d\d/)]));

    await page.getByText(/^The figures as a table/).click();
    const table = page.locator('table.figures-table');
    await table.waitFor();
    const column = async (n: number) => (await table.locator(`tbody tr td:nth-of-type(${n})`).allInnerTexts()).map(Number);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(await column(1))).toBe(sent.length);
    expect(sum(await column(2))).toBe(2);
    expect(sum(await column(3))).toBe(0);
    for (const p95 of await table.locator('tbody tr td:nth-of-type(5)').allInnerTexts()) expect(p95).toMatch(/^≤ /);
  });

  it('lists the latest operations newest first, with their names, outcomes and callers', async () => {
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
    const rows = await logRows();
    const newestFirst = [...sent].reverse();
    expect(rows.map((r) => [r.name, r.outcome])).toEqual(newestFirst.map((s) => [s.name ?? '—', s.outcome]));
    expect(rows.map((r) => r.requestId)).toEqual(newestFirst.map((s) => s.requestId));
    expect(rows.map((r) => r.status)).toEqual(newestFirst.map((s) => String(s.status)));
    expect(rows.map((r) => r.caller)).toEqual(newestFirst.map((s) => s.caller));
    for (const r of rows) expect(r.transport).toBe('http');
    const byName = (name: string) => rows.find((r) => r.name === name);
    expect(byName('AddProduct')?.type).toBe('mutation');
    expect(byName('ListProducts')?.type).toBe('query');
    // A document that did not validate, and a refused credential: no operation was read, so no name and no type.
    expect(rows[1]).toMatchObject({ name: '—', type: 'unknown', outcome: 'GRAPHQL_VALIDATION_FAILED', status: '200' });
    expect(rows[0]).toMatchObject({ name: '—', type: 'unknown', outcome: 'UNAUTHENTICATED', status: '401' });
    // The user's operation links to the user's page.
    expect(byName('MyProducts')?.user).toBe(userId);
    const userLink = page.getByRole('link', { name: userId });
    expect(await userLink.getAttribute('href')).toBe(`/console/apps/${appId}/users/${encodeURIComponent(userId)}`);
    for (const r of rows) expect(r.duration).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    await screenshot(page, '24-traffic');
  });

  it('narrows the log by outcome', async () => {
    const filter = page.getByLabel('Outcome');
    await filter.selectOption({ label: 'Any error' });
    await page.getByRole('status').getByText(`2 of ${sent.length} operations`).waitFor();
    expect((await logRows()).map((r) => r.outcome)).toEqual(['UNAUTHENTICATED', 'GRAPHQL_VALIDATION_FAILED']);

    await filter.selectOption({ label: 'UNAUTHENTICATED' });
    await page.getByRole('status').getByText(`1 of ${sent.length} operations`).waitFor();
    expect((await logRows()).map((r) => r.status)).toEqual(['401']);

    await filter.selectOption({ label: 'ok' });
    await page.getByRole('status').getByText(`${sent.length - 2} of ${sent.length} operations`).waitFor();
    expect(new Set((await logRows()).map((r) => r.outcome))).toEqual(new Set(['ok']));

    await filter.selectOption({ label: 'All outcomes' });
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
  });

  it('shows new traffic on Refresh, and keeps the chosen time range in the address', async () => {
    await send('query AfterwardsQuery { viewer { allProducts { edges { node { name } } } } }');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
    expect((await logRows())[0]?.name).toBe('AfterwardsQuery');
    expect(await stat('Operations')).toBe(String(sent.length));

    // A whole day is 1,440 minutes, all drawn.
    await page.getByText('24 hours', { exact: true }).click();
    await page.getByRole('region', { name: 'Last 24 hours' }).waitFor();
    expect(new URL(page.url()).search).toBe('?range=24h');
    await page.getByRole('img', { name: new RegExp(`^Operations per minute\\. ${sent.length} operations in the last 24 hours`) }).waitFor();
    expect(await page.locator('svg [data-series="Operations"]').getAttribute('d')).toMatch(/^M/);

    await page.getByText('15 minutes', { exact: true }).click();
    await page.getByRole('region', { name: 'Last 15 minutes' }).waitFor();
    expect(new URL(page.url()).search).toBe('?range=15m');
    expect(await page.getByRole('radio', { name: '15 minutes' }).isChecked()).toBe(true);
    expect(await stat('Operations')).toBe(String(sent.length));
    await page.reload();
    await page.getByRole('region', { name: 'Last 15 minutes' }).waitFor();
    expect(await page.getByRole('radio', { name: '15 minutes' }).isChecked()).toBe(true);
  });

  it('refreshes by itself every 10 s while the tab is visible, unless turned off', async () => {
    await page.clock.install();
    await page.reload();
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
    await send('query WhileWatching { viewer { allProducts { edges { node { name } } } } }');
    await page.clock.runFor(10_500);
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
    expect((await logRows())[0]?.name).toBe('WhileWatching');

    // Turned off: nothing new however long the page stays open.
    await page.getByLabel('Refresh every 10 s').uncheck();
    await send('query Unseen { viewer { allProducts { edges { node { name } } } } }');
    await page.clock.runFor(30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await logRows())[0]?.name).toBe('WhileWatching');

    // On again while the tab is hidden: still nothing, until the tab is shown, which refreshes at once.
    await setHidden(true);
    await page.getByLabel('Refresh every 10 s').check();
    await page.clock.runFor(30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await logRows())[0]?.name).toBe('WhileWatching');
    await setHidden(false);
    await page.getByRole('status').getByText(`${sent.length} operations`, { exact: true }).waitFor();
    expect((await logRows())[0]?.name).toBe('Unseen');
  });

  it('fits a 390 px window and reads well in dark mode', async () => {
    const narrow = await openPage(browser, { width: 390, height: 844 }, 'dark');
    try {
      await signIn(narrow.page, server);
      await narrow.page.goto(`${server.base}/console/apps/${appId}/traffic`);
      await narrow.page.getByRole('img', { name: /^Operations per minute/ }).waitFor();
      const overflow = await narrow.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBe(0);
      const chartWidth = (await narrow.page.getByRole('img', { name: /^Latency per minute/ }).boundingBox())?.width ?? 0;
      expect(chartWidth).toBeGreaterThan(250);
      expect(chartWidth).toBeLessThanOrEqual(390);
      // The bars take the dark scheme's accent, not the light one's.
      const fill = await narrow.page.evaluate<string>(`getComputedStyle(document.querySelector('svg [data-series="Operations"]')).fill`);
      expect(fill).toBe('rgb(134, 171, 255)');
      await screenshot(narrow.page, '25-dark-traffic-narrow');
      expect(narrow.problems.list).toEqual([]);
    } finally {
      await narrow.context.close();
    }
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

/** Sends an operation to the app's API as a client would, and records what the log should show. */
async function send(query: string, variables: Record<string, unknown> = {}, authorization?: string) {
  const response = await fetch(`${server.base}/graphql/${appId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = await jsonOf(response);
  const outcome: string = body.errors?.[0]?.extensions?.code ?? 'ok';
  // An operation has a name in the log once its document was read: not when refused before, nor when it did not validate.
  const read = response.status !== 401 && outcome !== 'GRAPHQL_VALIDATION_FAILED';
  const name = read ? (/^(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? null) : null;
  const caller = authorization === `Bearer ${server.key}` ? 'admin' : authorization && response.status === 200 ? 'user' : 'anonymous';
  sent.push({ name, outcome, status: response.status, caller, requestId: response.headers.get('x-request-id') ?? '' });
  return body;
}

/** Makes the page believe its tab was hidden or shown (headless Chromium's tab is always visible). */
async function setHidden(hidden: boolean): Promise<void> {
  await page.evaluate(`Object.defineProperty(document, 'hidden', { value: ${hidden}, configurable: true }); document.dispatchEvent(new Event('visibilitychange'))`);
}

/** The value of one of the summary's figures. */
async function stat(term: string): Promise<string> {
  const item = page.locator('.traffic-stats > div').filter({ has: page.getByRole('term').getByText(term, { exact: true }) });
  return (await item.getByRole('definition').innerText()).trim();
}

async function logRows() {
  const rows = await page.locator('table.log-table tbody tr').all();
  const out = [];
  for (const row of rows) {
    const [time, transport, type, name, outcome, duration, status, caller, user, requestId] = await row.locator('td').allInnerTexts();
    if (requestId === undefined) continue;
    out.push({ time, transport, type, name, outcome, duration, status, caller, user, requestId });
  }
  return out;
}
