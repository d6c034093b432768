// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) against a real
// server that serves the built console: what the console's end-to-end tests run in.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { jsonOf } from '../server/harness.js';
import type { Json } from '../server/harness.js';

export const CHROMIUM = process.env.TESSERA_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONSOLE_BUILD = join(ROOT, 'dist', 'console', 'index.html');
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'console');

/** Why the suite cannot run here, or undefined when it can. */
export function missingPrerequisite(): string | undefined {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set TESSERA_CHROMIUM)`;
  if (!existsSync(CONSOLE_BUILD)) return 'the console is not built (npm run build)';
  return undefined;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Problems the page reported itself: uncaught errors, CSP violations, console errors. */
export interface PageProblems {
  list: string[];
}

export async function openPage(
  browser: Browser,
  viewport = { width: 1366, height: 900 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce', colorScheme });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const problems: PageProblems = { list: [] };
  page.on('pageerror', (err) => problems.list.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    // A refused request (401 on a wrong key, a deliberate error case) is logged by the browser
    // as a failed resource; anything else at level error is a problem.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.list.push(`console error: ${message.text()}`);
  });
  return { context, page, problems };
}

/**
 * The page's alerts that say something. The code editor (Monaco), once loaded, keeps empty
 * `role="alert"` live regions of its own in the page; they announce nothing and are no error.
 */
export function shownAlerts(page: Page): ReturnType<Page['locator']> {
  return page.getByRole('alert').filter({ hasText: /\S/ });
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** A screenshot of one element (e.g. the schema diagram). */
export async function screenshotOf(locator: ReturnType<Page['locator']>, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await locator.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** A screenshot of the stretch of the page from the top of `first` to the bottom of `last`. */
export async function screenshotBetween(page: Page, first: ReturnType<Page['locator']>, last: ReturnType<Page['locator']>, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  const top = await first.boundingBox();
  const bottom = await last.boundingBox();
  if (!top || !bottom) throw new Error(`cannot take ${name}: an element is not shown`);
  const width = page.viewportSize()?.width ?? 1366;
  const y = Math.max(0, top.y - 16);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, clip: { x: 0, y, width, height: bottom.y + bottom.height + 16 - y } });
}

/**
 * Replaces the text of the Monaco editor inside `editor` by pasting, as a person would paste a
 * schema (typing would meet the editor's auto-closed brackets).
 */
export async function setEditorText(page: Page, editor: ReturnType<Page['locator']>, text: string): Promise<void> {
  await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  await editor.locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+V');
}

/** Signs in to the console at `base` with the platform key and waits for the apps page. */
export async function signIn(page: Page, server: { base: string; key: string }): Promise<void> {
  await page.goto(`${server.base}/console/`);
  await page.getByLabel('Platform key').fill(server.key);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
}

/** One GraphQL request to the server (the management API, or an app's API), answering the parsed body. */
export async function graphql(url: string, token: string | null, query: string, variables: Record<string, unknown> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await jsonOf(response) };
}

/** Creates an app with `schema` through the management API and answers its id. */
export async function createApp(server: { base: string; key: string }, name: string, schema: string): Promise<string> {
  const { body } = await graphql(`${server.base}/admin/graphql`, server.key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name, schema } });
  const id = body?.data?.createApp?.app?.id;
  if (typeof id !== 'string') throw new Error(`createApp failed: ${JSON.stringify(body)}`);
  return id;
}
