// End-to-end: the data browser's relation picker in headless Chromium against a real server
// (embedded store). With far more objects than one page holds, it searches the server, pages
// through the matches (by button and by keyboard), links any object, changes and clears a link.

import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type Author @model {
  name: String! @index
  books: [Book] @relation(name: "AuthorBooks")
}

type Book @model {
  title: String!
  author: Author @relation(name: "AuthorBooks")
}
`;

/** Author 001 … Author 130, and one whose name holds the search wildcards. */
const NAMES = [...Array.from({ length: 130 }, (_, i) => `Author ${String(i + 1).padStart(3, '0')}`), '100% Pure_Fiction'];

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
let bookId = '';

const missing = missingPrerequisite();

describe('console: relation picker', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'library', SCHEMA);
    // 25 creates per request (the default limit is 30 aliases).
    for (let i = 0; i < NAMES.length; i += 25) {
      const fields = NAMES.slice(i, i + 25).map((name, j) => `a${j}: createAuthor(input: { name: ${JSON.stringify(name)} }) { changedAuthor { id } }`);
      const { body } = await graphql(`${server.base}/graphql/${appId}`, server.key, `mutation { ${fields.join(' ')} }`);
      expect(body.errors).toBeUndefined();
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

  it('pages through every object of the related type', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/data/Book`);
    await page.getByRole('button', { name: 'New Book' }).click();
    const form = page.getByRole('form', { name: 'New Book' });
    const picker = form.getByRole('combobox', { name: /^author/ });
    await picker.focus();
    await page.keyboard.press('ArrowDown');
    await form.getByRole('status').getByText('20 of 131 Author objects').waitFor();
    expect(await options(form).first().innerText()).toContain('100% Pure_Fiction');
    await form.getByRole('button', { name: 'More results' }).click();
    await form.getByRole('status').getByText('40 of 131 Author objects').waitFor();
    expect(await options(form).count()).toBe(40);
    // The list kept the focus in the picker, and is still open.
    expect(await picker.getAttribute('aria-expanded')).toBe('true');
  });

  it('searches the server, and the arrow keys load more matches at the end of the list', async () => {
    const form = page.getByRole('form', { name: 'New Book' });
    const picker = form.getByRole('combobox', { name: /^author/ });
    await picker.fill('author 1');
    await form.getByRole('status').getByText('20 of 31 matches').waitFor();
    await screenshot(page, '19-relation-picker', false);
    for (let i = 0; i < 20; i += 1) await page.keyboard.press('ArrowDown');
    await form.getByRole('status').getByText('31 matches', { exact: true }).waitFor();
    expect(await options(form).last().innerText()).toContain('Author 130');
    expect(await form.getByRole('button', { name: 'More results' }).count()).toBe(0);

    // % and _ are found as themselves, not as wildcards.
    await picker.fill('100%');
    await form.getByRole('status').getByText('1 match', { exact: true }).waitFor();
    await picker.fill('nobody by this name');
    await form.getByRole('status').getByText('No Author matches “nobody by this name”').waitFor();
  });

  it('links an object far beyond the first page', async () => {
    const form = page.getByRole('form', { name: 'New Book' });
    const picker = form.getByRole('combobox', { name: /^author/ });
    await picker.fill('Author 125');
    await form.getByRole('status').getByText('1 match', { exact: true }).waitFor();
    await page.keyboard.press('Enter');
    expect(await picker.inputValue()).toBe('Author 125');
    expect(await picker.getAttribute('aria-expanded')).toBe('false');
    await form.getByLabel(/^title/).fill('The Left Hand of Darkness');
    await form.getByRole('button', { name: 'Create Book' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Author 125' }).waitFor();
    const books = await bookAuthors();
    expect(books).toEqual([{ title: 'The Left Hand of Darkness', author: 'Author 125' }]);
    bookId = (await bookIds())[0] ?? '';
  });

  it('changes and clears a link; Escape closes the list before the dialog', async () => {
    await page.getByRole('button', { name: `Edit Book ${bookId}` }).click();
    const form = page.getByRole('form', { name: 'Edit Book' });
    const picker = form.getByRole('combobox', { name: /^author/ });
    expect(await picker.inputValue()).toBe('Author 125');
    await picker.fill('007');
    await form.getByRole('option', { name: /Author 007/ }).click();
    expect(await picker.inputValue()).toBe('Author 007');

    // Escape with the list open closes the list only.
    await picker.fill('Author 00');
    await form.getByRole('listbox').waitFor();
    await page.keyboard.press('Escape');
    await form.getByRole('listbox').waitFor({ state: 'detached' });
    expect(await picker.inputValue()).toBe('Author 007');
    expect(await form.isVisible()).toBe(true);

    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Author 007' }).waitFor();
    expect((await bookAuthors())[0]?.author).toBe('Author 007');

    await page.getByRole('button', { name: `Edit Book ${bookId}` }).click();
    await form.getByRole('button', { name: 'Clear author' }).click();
    expect(await form.getByRole('combobox', { name: /^author/ }).inputValue()).toBe('');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => (await bookAuthors())[0]?.author).toBeNull();
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

function options(scope: Locator): Locator {
  return scope.getByRole('option');
}

async function bookAuthors(): Promise<{ title: string; author: string | null }[]> {
  const { body } = await graphql(`${server.base}/graphql/${appId}`, server.key, '{ viewer { allBooks { edges { node { title author { name } } } } } }');
  return (body.data.viewer.allBooks.edges as { node: { title: string; author: { name: string } | null } }[]).map((e) => ({ title: e.node.title, author: e.node.author?.name ?? null }));
}

async function bookIds(): Promise<string[]> {
  const { body } = await graphql(`${server.base}/graphql/${appId}`, server.key, '{ viewer { allBooks { edges { node { id } } } } }');
  return (body.data.viewer.allBooks.edges as { node: { id: string } }[]).map((e) => e.node.id);
}
