// End-to-end: the real console in headless Chromium against a real server (embedded store),
// one app's life from sign-in to deletion, as a developer would click through it. Each page is
// saved as a screenshot under test-artifacts/console/ (docs/console.md shows a set of them).

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { launchBrowser, missingPrerequisite, openPage, screenshot, setEditorText } from './harness.js';
import type { PageProblems } from './harness.js';

const BROKEN_SCHEMA = `type Author @model @permission(scope: AUTHENTICATED, read: true) {
  name: String!
  books: [Book] @relation(name: "AuthorBooks")
}

type Book @model @permission(scope: AUTHENTICATED, read: true) {
  title: String! @index
  pages: Int
  author: Writer @relation(name: "AuthorBooks")
}
`;

const SCHEMA = BROKEN_SCHEMA.replace('author: Writer', 'author: Author');

const USER_QUERY = `query BooksAsAlice {
  viewer {
    user { username }
    allBooks(orderBy: { field: title, direction: ASC }) {
      edges { node { title author { name } } }
    }
  }
}
`;

const USERNAME = 'alice';
const PASSWORD = 'correct-horse-battery';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';

/** Fails the test with the prerequisite that is missing, rather than skipping silently. */
const missing = missingPrerequisite();

describe('web console', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('signs in with the platform key, by keyboard alone, after a wrong key is refused', async () => {
    await page.goto(`${server.base}/console/`);
    const key = page.getByLabel('Platform key');
    await expect.poll(() => focusedId()).toBe('platform-key');
    await page.keyboard.type('not-the-platform-key');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('UNAUTHENTICATED').waitFor();
    await screenshot(page, '01-sign-in-refused');
    await key.fill('');
    await page.keyboard.type(server.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    // Kept for this tab only, never in the URL.
    expect(await page.evaluate("sessionStorage.getItem('tessera.platformKey')")).toBe(server.key);
    expect(await page.evaluate("Object.values(localStorage).join(' ')")).not.toContain(server.key);
    expect(page.url()).not.toContain(server.key);
  });

  it('creates an app and lands on its schema', async () => {
    await page.getByLabel('Name', { exact: true }).fill('library');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { level: 1, name: /Schema/ }).waitFor();
    appId = /\/apps\/([a-z0-9]+)\/schema/.exec(page.url())?.[1] ?? '';
    expect(appId).toMatch(/^[a-z][a-z0-9]{11}$/);
  });

  it('marks a schema problem at its line in the editor', async () => {
    const editor = page.getByTestId('sdl-editor');
    await setEditorText(page, editor, BROKEN_SCHEMA);
    const problemList = page.getByRole('region', { name: 'Schema problems' });
    await problemList.waitFor();
    await expect.poll(() => problemList.innerText()).toMatch(/Line 9, column 11: .*Writer/);
    await editor.locator('.squiggly-error').first().waitFor();
    await expect(page.getByRole('button', { name: 'Preview changes' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, '02-schema-problem', false);
  });

  it('previews the migration plan and applies it', async () => {
    const editor = page.getByTestId('sdl-editor');
    await setEditorText(page, editor, SCHEMA);
    await page.getByText('Valid schema').waitFor();
    await page.getByRole('button', { name: 'Preview changes' }).click();
    const plan = page.locator('.plan-steps');
    await plan.waitFor();
    expect(await plan.innerText()).toMatch(/createType/);
    expect(await plan.locator('.destructive').count()).toBe(0);
    await screenshot(page, '03-schema-preview', false);
    await page.getByRole('button', { name: 'Apply version 2' }).click();
    await page.getByText('Applied: the app is now at schema version 2').waitFor();
    await page.getByRole('heading', { name: 'Types and relations (live version 2)' }).waitFor();
    expect(await page.locator('article[aria-labelledby="type-Book"]').innerText()).toContain('many-to-one');
    await screenshot(page, '04-schema-applied');
  });

  it('marks destructive steps and asks before applying them', async () => {
    const editor = page.getByTestId('sdl-editor');
    await setEditorText(page, editor, SCHEMA.replace('  pages: Int\n', ''));
    await page.getByText('Valid schema').waitFor();
    await page.getByRole('button', { name: 'Preview changes' }).click();
    const step = page.locator('.plan-steps .destructive');
    await step.first().waitFor();
    expect(await step.first().innerText()).toMatch(/Destructive/);
    const apply = page.getByRole('button', { name: 'Apply version 3' });
    expect(await apply.isDisabled()).toBe(true);
    await page.getByLabel(/Apply the destructive steps/).check();
    expect(await apply.isDisabled()).toBe(false);
    await screenshot(page, '05-schema-destructive', false);
    await page.getByRole('button', { name: 'Reset to live schema' }).click();
    await page.getByText('Valid schema').waitFor();
  });

  it('adds, edits and relates rows in the data browser, and follows a relation', async () => {
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Data' }).click();
    const types = page.getByRole('navigation', { name: 'Types' });
    await types.getByRole('link', { name: 'Author' }).click();
    await createRow('Author', async (form) => form.getByLabel(/^name/).fill('Ursula K. Le Guin'));
    await page.getByRole('cell', { name: 'Ursula K. Le Guin' }).waitFor();

    await types.getByRole('link', { name: 'Book' }).click();
    for (const [title, pages] of [['A Wizard of Earthsea', '183'], ['The Dispossessed', '387']] as const) {
      await createRow('Book', async (form) => {
        await form.getByLabel(/^title/).fill(title);
        await form.getByLabel(/^pages/).fill(pages);
        await form.getByRole('combobox', { name: /^author/ }).fill('ursula');
        await form.getByRole('option', { name: /Ursula K\. Le Guin/ }).click();
      });
    }
    await page.getByRole('status').getByText('2 objects').waitFor();
    expect(await page.getByRole('link', { name: 'Ursula K. Le Guin' }).count()).toBe(2);

    // Edit: only the changed field is sent.
    const row = page.getByRole('row', { name: /The Dispossessed/ });
    await row.getByRole('button', { name: /^Edit Book/ }).click();
    const form = page.getByRole('form', { name: 'Edit Book' });
    await form.getByLabel(/^pages/).fill('400');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('cell', { name: '400' }).waitFor();

    // Filter and order.
    await page.getByLabel('Filter', { exact: true }).selectOption('title');
    await page.getByLabel('Value', { exact: true }).fill('%earthsea%');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByRole('status').getByText('1 object', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await page.getByRole('status').getByText('2 objects').waitFor();
    await page.getByRole('button', { name: /^pages/ }).click();
    await expect.poll(() => page.locator('tbody tr').first().innerText()).toContain('183');
    await screenshot(page, '06-data-books');

    // Follow the relation from the author to their books.
    await types.getByRole('link', { name: 'Author' }).click();
    await page.getByRole('link', { name: /books of Author .*: 2/ }).click();
    await page.getByRole('heading', { name: /Book objects in books of Author/ }).waitFor();
    await page.getByRole('status').getByText('2 objects').waitFor();
    await screenshot(page, '07-data-relation');

    // A user to log in as in the explorer.
    await types.getByRole('link', { name: 'User' }).click();
    await createRow('User', async (f) => {
      await f.getByLabel(/^username/).fill(USERNAME);
      await f.getByLabel(/^password/).fill(PASSWORD);
    });
    await page.getByRole('cell', { name: USERNAME }).waitFor();
  });

  it('runs a query in the explorer as a logged-in user', async () => {
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Explorer' }).click();
    await page.getByLabel('A user…').check();
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText(`Requests carry the token of ${USERNAME}`).waitFor();
    const editor = page.locator('.graphiql-query-editor');
    await editor.locator('.view-lines').waitFor();
    await setEditorText(page, editor, USER_QUERY);
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(responseText, { timeout: 15_000 }).toContain('A Wizard of Earthsea');
    const text = await responseText();
    expect(text).toContain(`"username": "${USERNAME}"`);
    expect(text).toContain('Ursula K. Le Guin');
    await screenshot(page, '08-explorer-user', false);

    // A subscription, still as the user: it goes over the WebSocket and shows the next event.
    await setEditorText(page, editor, 'subscription NewBooks {\n  subscribeToBook(mutations: [createBook]) { mutation value { title } }\n}\n');
    // GraphiQL reads the operation's name from the editor a moment after it changes.
    await page.waitForTimeout(500);
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(() => subscriptionsOpen(), { timeout: 15_000 }).toBe(1);
    const created = await fetch(`${server.base}/graphql/${appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
      body: JSON.stringify({ query: 'mutation { createBook(input: { title: "The Tombs of Atuan" }) { changedBook { id } } }' }),
    });
    expect(created.status).toBe(200);
    await expect.poll(responseText, { timeout: 15_000 }).toContain('The Tombs of Atuan');
    expect(await responseText()).toContain('"mutation": "createBook"');
    await page.getByRole('button', { name: /Stop/ }).click();
    await expect.poll(() => subscriptionsOpen(), { timeout: 15_000 }).toBe(0);
    await setEditorText(page, editor, USER_QUERY);
    await page.waitForTimeout(500);

    // Anonymous: the same query sees no user and, with read rules for logged-in users only, no books.
    await page.getByLabel('Anonymous').check();
    await page.locator('.graphiql-query-editor .view-lines').waitFor();
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(responseText, { timeout: 15_000 }).toMatch(/"user": null/);
    expect(await responseText()).not.toContain('Earthsea');
  });

  it('creates an admin token, shows it once, and revokes it', async () => {
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel('Name', { exact: true }).fill('ci');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Token "ci" created' });
    const token = await dialog.getByLabel('New admin token', { exact: true }).inputValue();
    expect(token).toMatch(/^tat_/);
    expect(await callApp(token)).toBe(200);
    await dialog.getByRole('button', { name: 'Copy New admin token' }).click();
    await dialog.getByRole('button', { name: 'Copy New admin token' }).getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    await screenshot(page, '09-token-created', false);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    expect(await page.content()).not.toContain(token);

    await page.getByRole('button', { name: 'Revoke ci' }).click();
    await page.getByRole('dialog', { name: 'Revoke "ci"?' }).getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('No live admin tokens.').waitFor();
    expect(await callApp(token)).toBe(401);
    await screenshot(page, '10-tokens');
  });

  it('fits a narrow window', async () => {
    const narrow = await openPage(browser, { width: 390, height: 844 });
    await narrow.page.goto(`${server.base}/console/`);
    await narrow.page.getByLabel('Platform key').fill(server.key);
    await narrow.page.keyboard.press('Enter');
    await narrow.page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await narrow.page.locator('.app-card').first().waitFor();
    const overflow = () => narrow.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(narrow.page, '11-narrow-apps');
    await narrow.page.goto(`${server.base}/console/apps/${appId}/schema`);
    await narrow.page.getByText('Valid schema').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(narrow.page, '12-narrow-schema', false);
    expect(narrow.problems.list).toEqual([]);
    await narrow.context.close();
  });

  it('deletes the app with a keyboard-operated confirmation dialog', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps' }).click();
    await page.locator('.app-card').first().waitFor();
    await screenshot(page, '13-apps');
    const remove = page.getByRole('button', { name: 'Delete library' });
    await remove.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete library?' });
    await dialog.waitFor();
    // Escape closes it and gives focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Delete library');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Delete app' }).isDisabled()).toBe(true);
    await page.keyboard.type('library');
    await screenshot(page, '14-delete-app', false);
    await page.keyboard.press('Tab'); // Cancel
    await page.keyboard.press('Tab'); // Delete app
    await page.keyboard.press('Enter');
    await page.getByText('No apps yet').waitFor();
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

/** Opens the "New X" form, fills it, creates, and waits for the dialog to close. */
async function createRow(type: string, fill: (form: ReturnType<Page['getByRole']>) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: `New ${type}` }).click();
  const form = page.getByRole('form', { name: `New ${type}` });
  await fill(form);
  await form.getByRole('button', { name: `Create ${type}` }).click();
  await form.waitFor({ state: 'detached' });
}

// The page's own expressions are passed as text: they run in the browser, and the tests are
// type-checked without the DOM library.

/** The id of the element that has focus. */
async function focusedId(): Promise<unknown> {
  return page.evaluate('document.activeElement?.id');
}

/** The text of GraphiQL's response pane (Monaco renders spaces as no-break spaces). */
async function responseText(): Promise<string> {
  return (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
}

/** Subscriptions the server has open, from its metrics. */
async function subscriptionsOpen(): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  return Number(/^tessera_subscriptions (\d+)$/m.exec(text)?.[1] ?? 0);
}

async function callApp(token: string): Promise<number> {
  const response = await fetch(`${server.base}/graphql/${appId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ viewer { id } }' }),
  });
  return response.status;
}
