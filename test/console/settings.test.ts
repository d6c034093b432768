// End-to-end: an app's settings page in headless Chromium against a real server (embedded
// store). The page reads the settings, refuses bad values with the server's coded error at the
// field it names, saves only what changed, and the server then behaves accordingly (CORS).

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, shownAlerts, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const ORIGIN = 'https://shop.example.com';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';

const missing = missingPrerequisite();

describe('console: app settings', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'shop', 'type Product @model { name: String! }');
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it("shows the app's settings with the server's descriptions", async () => {
    await page.goto(`${server.base}/console/apps/${appId}/schema`);
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: /Settings · shop/ }).waitFor();
    expect(await page.getByLabel('Query depth').inputValue()).toBe('15');
    expect(await page.getByLabel('Maximum page size').inputValue()).toBe('1000');
    expect(await page.getByLabel('Token lifetime').inputValue()).toBe(String(15 * 24 * 3600));
    await page.getByText('seconds (15 days)').waitFor();
    expect(await page.getByLabel('Answer introspection queries').isChecked()).toBe(true);
    expect(await page.getByLabel("Follow the server's list").isChecked()).toBe(true);
    // Descriptions, defaults and bounds come from the management API's schema.
    expect(await page.locator('#setting-maxDepth-hint').innerText()).toMatch(/Default: 15\. From 1 to 100\./);
    expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
  });

  it('refuses a value out of bounds with the coded error at its field, and saves nothing', async () => {
    await page.getByLabel('Query depth').fill('1000');
    await page.getByText('1 unsaved change').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The settings were not saved' });
    await alert.getByText('BAD_USER_INPUT').waitFor();
    expect(await alert.innerText()).toContain('maxDepth');
    expect(await page.getByLabel('Query depth').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-maxDepth-error').innerText()).toMatch(/from 1 to 100/);
    await screenshot(page, '16-settings-refused');
    expect((await settings()).maxDepth).toBe(15);
  });

  it('refuses an origin with a path, and a default page size above the maximum', async () => {
    await page.getByLabel('Query depth').fill('12');
    await page.getByLabel("This app's own list").check();
    await page.getByLabel('Allowed origins, one per line').fill(`${ORIGIN}/checkout`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The settings were not saved' });
    await expect.poll(() => alert.innerText()).toContain('corsOrigins');
    expect(await alert.innerText()).toContain('BAD_USER_INPUT');
    expect(await page.getByLabel('Allowed origins, one per line').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Allowed origins, one per line').fill(ORIGIN);
    await page.getByLabel('Default page size').fill('600');
    await page.getByLabel('Maximum page size').fill('500');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => alert.innerText()).toContain('cannot exceed maxPageSize');
    expect(await page.getByLabel('Default page size').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Allowed origins, one per line').getAttribute('aria-invalid')).toBeNull();
    const stored = await settings();
    expect([stored.maxDepth, stored.defaultPageSize, stored.corsOrigins]).toEqual([15, 100, null]);
  });

  it('saves the changed settings, which the server applies from the next request', async () => {
    await page.getByLabel('Default page size').fill('50');
    await page.getByLabel('Answer introspection queries').uncheck();
    await page.getByText('5 unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/^Saved 5 settings: /).waitFor();
    expect(await shownAlerts(page).count()).toBe(0);
    await screenshot(page, '15-settings');
    const stored = await settings();
    expect(stored).toMatchObject({ maxDepth: 12, defaultPageSize: 50, maxPageSize: 500, introspection: false, corsOrigins: [ORIGIN] });
    expect(stored.tokenLifetimeSeconds).toBe(15 * 24 * 3600);

    // The app's API now answers a browser app on that origin, and only that one.
    expect(await allowedOrigin(ORIGIN)).toBe(ORIGIN);
    expect(await allowedOrigin('https://elsewhere.example.com')).toBeNull();

    // Reloaded, the page shows what the server keeps.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /Settings/ }).waitFor();
    expect(await page.getByLabel('Query depth').inputValue()).toBe('12');
    expect(await page.getByLabel('Answer introspection queries').isChecked()).toBe(false);
    expect(await page.getByLabel('Allowed origins, one per line').inputValue()).toBe(ORIGIN);
  });

  it("discards unsaved edits, and gives the app back the server's origins", async () => {
    await page.getByLabel('Aliases').fill('3');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByLabel('Aliases').inputValue()).toBe('30');
    await page.getByLabel("Follow the server's list").check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved 1 setting: corsOrigins.', { exact: false }).waitFor();
    expect((await settings()).corsOrigins).toBeNull();
    expect(await allowedOrigin(ORIGIN)).toBeNull();
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

async function settings(): Promise<Record<string, unknown>> {
  const { body } = await graphql(`${server.base}/admin/graphql`, server.key, 'query($id: ID!) { app(id: $id) { settings { tokenLifetimeSeconds defaultPageSize maxPageSize maxDepth introspection corsOrigins } } }', { id: appId });
  return body.data.app.settings as Record<string, unknown>;
}

/** The Access-Control-Allow-Origin the app's API answers a preflight from `origin` with. */
async function allowedOrigin(origin: string): Promise<string | null> {
  const response = await fetch(`${server.base}/graphql/${appId}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  return response.headers.get('access-control-allow-origin');
}
