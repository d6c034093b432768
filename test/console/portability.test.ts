// End-to-end: an app card's Export and Fork buttons, in headless Chromium against a real server
// (embedded store). Export downloads the app's archive (checked here: header, rows, trailer);
// Fork asks for a name and adds the copy to the list, with the same rows.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';

const missing = missingPrerequisite();

describe('console: export and fork', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'shop', 'type Product @model { name: String }');
    const token = await graphql(`${server.base}/admin/graphql`, server.key, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 't' } });
    for (const name of ['lamp', 'chair']) {
      await graphql(`${server.base}/graphql/${appId}`, token.body.data.createAdminToken.token as string, 'mutation($n: String) { createProduct(input: { name: $n }) { changedProduct { id } } }', { n: name });
    }
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('Export downloads the app archive', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export shop' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^shop-\d{4}-\d{2}-\d{2}\.tessera\.gz$/);
    const lines = gunzipSync(readFileSync((await download.path()) as string)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(lines[0]).toMatchObject({ kind: 'header', app: { id: appId, name: 'shop' } });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', rows: { Product: 2 } });
    expect(problems.list).toEqual([]);
  });

  it('Fork asks for a name and adds the copy, with the same rows', async () => {
    await page.getByRole('button', { name: 'Fork shop' }).click();
    const name = page.getByLabel("New app's name");
    await expect(name.inputValue()).resolves.toBe('shop-copy');
    await name.fill('shop-try');
    await page.getByRole('button', { name: 'Fork app' }).click();
    await page.getByRole('heading', { level: 3, name: 'shop-try' }).waitFor();
    const rows = async (id: string) => (await graphql(`${server.base}/graphql/${id}`, server.key, '{ viewer { allProducts(orderBy: { field: name, direction: ASC }) { edges { node { id name } } } } }')).body.data;
    const apps = await graphql(`${server.base}/admin/graphql`, server.key, '{ apps { id name } }');
    const fork = (apps.body.data.apps as { id: string; name: string }[]).find((a) => a.name === 'shop-try');
    expect(await rows(fork!.id)).toEqual(await rows(appId));
    expect(problems.list).toEqual([]);
  });
});
