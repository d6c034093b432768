// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) against a real
// server that serves the built console: what the console's end-to-end tests run in.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

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

export async function openPage(browser: Browser, viewport = { width: 1366, height: 900 }): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
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

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
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
