// End-to-end: files in the data browser, in headless Chromium against a real server keeping
// files on disk (embedded store). Files are uploaded by the file input, by drag and drop and
// inside a new object's form; the list shows their size, type, hash and owner; images are
// previewed and nothing else is rendered inline; downloads give back the uploaded bytes; a file
// over the app's maxFileSize shows LIMIT_EXCEEDED and leaves nothing; deleting removes the file.

import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_FILE, eventually, multipart, startFileServer } from '../files/harness.js';
import type { FileServer } from '../files/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, shownAlerts, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type Post @model {
  title: String!
  cover: File @relation(name: "PostCover")
}

type File @model {
  coverOf: Post @relation(name: "PostCover")
  caption: String
}
`;

/** The app's maxFileSize for this suite, in bytes. */
const MAX_FILE_SIZE = 40_000;

let files: FileServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
let endpoint = '';
/** A 64 × 48 PNG of noise (so it does not compress below a few KiB). */
let png: Buffer;
const notes = Buffer.from('Shopping list:\n- flour\n- eggs\n');

const missing = missingPrerequisite();
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('console: files in the data browser', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    files = await startFileServer('embedded', 'disk');
    const server = files.server;
    appId = await createApp(server, 'gallery', SCHEMA);
    endpoint = `${server.base}/graphql/${appId}`;
    const settings = await graphql(`${server.base}/admin/graphql`, server.key, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', {
      i: { appId, settings: { maxFileSize: MAX_FILE_SIZE } },
    });
    expect(settings.body.errors).toBeUndefined();
    png = await sharp(randomBytes(64 * 48 * 3), { raw: { width: 64, height: 48, channels: 3 } }).png().toBuffer();
    // A file a user uploaded through the app's API: the list names them as its owner.
    const signUp = await graphql(endpoint, null, 'mutation { createUser(input: { username: "ada", password: "analytical-1" }) { token } }');
    const token = signUp.body.data.createUser.token as string;
    const uploaded = await multipart({ endpoint }, { query: CREATE_FILE, variables: { input: { blob: null } } }, { 0: ['variables.input.blob'] }, [{ name: '0', filename: 'notes.txt', type: 'text/plain', bytes: notes }], {
      authorization: `Bearer ${token}`,
    });
    expect(uploaded.body.data.createFile.changedFile.owner.username).toBe('ada');
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await files?.close();
  });

  it('uploads an image from the file input and lists it with its size, type, hash and owner', async () => {
    await page.goto(`${files.server.base}/console/apps/${appId}/data/File`);
    await rowOf('notes.txt').waitFor();
    await page.getByLabel('Upload files…').setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('status').getByText('Uploaded 1 file.').waitFor();
    const row = rowOf('sunset.png');
    await row.waitFor();
    expect(png.length).toBeGreaterThan(1024);
    expect(await row.getByText(/KiB$/).innerText()).toBe(`${(png.length / 1024).toFixed(1)} KiB`);
    expect(await row.getByTitle(`${png.length} bytes`).count()).toBe(1);
    expect(await row.getByRole('cell', { name: 'image/png', exact: true }).count()).toBe(1);
    const hash = row.locator('code.hash');
    expect(await hash.innerText()).toBe(`${sha256(png).slice(0, 12)}…`);
    expect(await hash.getAttribute('title')).toBe(sha256(png));
    // Uploaded with the platform key: no owner. The user's file names its owner.
    expect(await rowOf('notes.txt').getByRole('link', { name: 'ada' }).count()).toBe(1);
    expect(await rowOf('notes.txt').getByText(`${notes.length} bytes`).count()).toBe(1);
    await expectCount('2 objects');
  });

  it('reaches the upload control by keyboard, its focus shown on the visible button', async () => {
    await page.getByRole('button', { name: 'New File' }).focus();
    await page.keyboard.press('Tab');
    const input = page.getByLabel('Upload files…');
    expect(await input.evaluate((el: { ownerDocument: { activeElement: unknown } }) => el.ownerDocument.activeElement === el)).toBe(true);
    const outline = await page.evaluate<string>("getComputedStyle(document.querySelector('.upload-zone label')).outlineStyle");
    expect(outline).toBe('solid');
  });

  it('previews images, and renders no other file inline', async () => {
    const preview = rowOf('sunset.png').getByRole('img', { name: 'Preview of sunset.png' });
    await expect.poll(() => preview.evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0))).toBe(64);
    expect(await preview.evaluate((img: { naturalHeight: number }) => img.naturalHeight)).toBe(48);
    expect(await rowOf('notes.txt').getByRole('img').count()).toBe(0);
    expect(await page.locator('iframe, object, embed').count()).toBe(0);
    await screenshot(page, '31-files');
  });

  it('downloads the bytes that were uploaded, under the file name, from the console origin', async () => {
    for (const [name, bytes] of [['sunset.png', png], ['notes.txt', notes]] as const) {
      const link = rowOf(name).getByRole('link', { name: `Download ${name}` });
      expect(await link.getAttribute('href')).toMatch(new RegExp(`^/files/${appId}/[^/?]+\\?expires=\\d+&signature=[0-9a-f]{64}$`));
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe(name);
      expect(sha256(await readFile(await download.path()))).toBe(sha256(bytes));
    }
  });

  it('refuses a file over maxFileSize with LIMIT_EXCEEDED and keeps no row and no bytes', async () => {
    const storedBefore = (await files.stored(appId)).length;
    // Far over the limit: the server refuses it while it streams, and the browser still reads the answer.
    await page.getByLabel('Upload files…').setInputFiles({ name: 'huge.bin', mimeType: 'application/octet-stream', buffer: randomBytes(4 * 1024 * 1024) });
    const alert = page.getByRole('alert').filter({ hasText: 'Could not upload huge.bin' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('LIMIT_EXCEEDED');
    expect(await alert.innerText()).toContain(`maxFileSize (${MAX_FILE_SIZE} bytes)`);
    await expectCount('2 objects');
    expect(await rowOf('huge.bin').count()).toBe(0);
    const { body } = await graphql(endpoint, files.server.key, '{ viewer { allFiles { aggregations { count } edges { node { name } } } } }');
    expect(body.data.viewer.allFiles.aggregations.count).toBe(2);
    expect(await eventually(async () => (await files.stored(appId)).length === storedBefore)).toBe(true);
    // The input takes files again after the refusal.
    expect(await page.getByLabel('Upload files…').isEnabled()).toBe(true);
  });

  it('uploads a dropped file', async () => {
    const zone = page.locator('.upload-zone');
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped text'], 'dropped.txt', { type: 'text/plain' }));
      return transfer;
    })()`);
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
    await rowOf('dropped.txt').waitFor();
    expect(await shownAlerts(page).count()).toBe(0);
    await expectCount('3 objects');
    expect(await rowOf('dropped.txt').getByText('12 bytes').count()).toBe(1);
  });

  it('shows the progress of an upload under way, and takes no other file meanwhile', async () => {
    // A slow link (Chromium's network emulation) keeps the upload under way long enough to see it.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * 1024 });
    try {
      await page.getByLabel('Upload files…').setInputFiles({ name: 'slow.bin', mimeType: 'application/octet-stream', buffer: randomBytes(32 * 1024) });
      const progress = page.getByRole('progressbar', { name: 'Uploading slow.bin' });
      await progress.waitFor();
      expect(await page.locator('.upload-zone').getAttribute('aria-busy')).toBe('true');
      expect(await page.getByLabel('Upload files…').isDisabled()).toBe(true);
      await page.getByRole('status').getByText('Uploading slow.bin…').waitFor();
      await expect.poll(() => progress.evaluate((p: { value: number }) => p.value), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.getByRole('status').getByText('Uploaded 1 file.').waitFor({ timeout: 30_000 });
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.detach();
    }
    expect(await progressCount()).toBe(0);
    expect(await page.getByLabel('Upload files…').isEnabled()).toBe(true);
    await expectCount('4 objects');
  });

  it('shows a hostile file name as text and never runs what a file holds', async () => {
    const name = '"><img src=x onerror="window.pwned=1">.html';
    const html = Buffer.from('<script>window.pwned = 1</script><h1>hello</h1>');
    await page.getByLabel('Upload files…').setInputFiles({ name, mimeType: 'text/html', buffer: html });
    const row = rowOf('onerror');
    await row.waitFor();
    expect(await row.getByRole('cell', { name, exact: true }).count()).toBe(1);
    expect(await row.getByRole('img').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `Download ${name}` }).click()]);
    expect(sha256(await readFile(await download.path()))).toBe(sha256(html));
    expect(await page.evaluate('window.pwned')).toBeUndefined();
  });

  it('uploads from the New File form, with a name and fields of its own', async () => {
    await page.getByRole('button', { name: 'New File' }).click();
    const form = page.getByRole('form', { name: 'New File' });
    await form.getByLabel(/^blob a file to upload/).setInputFiles({ name: 'IMG_0001.png', mimeType: 'image/png', buffer: png });
    await form.getByLabel(/^name/).fill('Lighthouse.png');
    await form.getByLabel(/^caption/).fill('The lighthouse at dusk');
    await form.getByRole('button', { name: 'Create File' }).click();
    await form.waitFor({ state: 'detached' });
    const row = rowOf('Lighthouse.png');
    await row.getByRole('cell', { name: 'The lighthouse at dusk' }).waitFor();
    await row.getByRole('img', { name: 'Preview of Lighthouse.png' }).waitFor();
    await expectCount('6 objects');
  });

  it('creates an object with a new file for its relation, in one request', async () => {
    await page.goto(`${files.server.base}/console/apps/${appId}/data/Post`);
    await page.getByRole('button', { name: 'New Post' }).click();
    const form = page.getByRole('form', { name: 'New Post' });
    await form.getByLabel(/^title/).fill('Holiday');
    await form.getByLabel(/^cover a file to upload/).setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
    await form.getByRole('button', { name: 'Create Post' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Holiday' });
    await row.getByRole('link', { name: 'cover.png' }).waitFor();
    const { body } = await graphql(endpoint, files.server.key, '{ viewer { allPosts { edges { node { title cover { name sha256 contentType } } } } } }');
    expect(body.data.viewer.allPosts.edges).toEqual([{ node: { title: 'Holiday', cover: { name: 'cover.png', sha256: sha256(png), contentType: 'image/png' } } }]);
  });

  it('deletes a File and its bytes; its download link then answers 404', async () => {
    await page.goto(`${files.server.base}/console/apps/${appId}/data/File`);
    const row = rowOf('sunset.png');
    await row.waitFor();
    const href = (await row.getByRole('link', { name: 'Download sunset.png' }).getAttribute('href')) ?? '';
    const storedBefore = (await files.stored(appId)).length;
    await row.getByRole('button', { name: /^Delete File/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this File?' });
    expect(await dialog.innerText()).toContain('Its file is removed from storage.');
    await dialog.getByRole('button', { name: 'Delete File' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectCount('6 objects');
    expect(await rowOf('sunset.png').count()).toBe(0);
    expect((await fetch(new URL(href, files.server.base))).status).toBe(404);
    expect(await eventually(async () => (await files.stored(appId)).length === storedBefore - 1)).toBe(true);
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

/** The table row of the File named `name` (its text contains it). */
function rowOf(name: string): Locator {
  return page.locator('table.data-table tbody tr').filter({ hasText: name });
}

function progressCount(): Promise<number> {
  return page.getByRole('progressbar').count();
}

async function expectCount(text: string): Promise<void> {
  await page.locator('.table-toolbar .count').getByText(text, { exact: true }).waitFor();
}
