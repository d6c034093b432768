// End-to-end: user management in headless Chromium against a real server (embedded store).
// Users are listed, searched by username and email on the server (case-insensitively, a `_` in
// the search matching itself), paged, opened; an operator edits one, sets a new password (the
// user's old token stops working) and deletes one.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type User @model {
  displayName: String
  email: String @unique
  posts: [Post] @relation(name: "PostAuthor")
}

type Post @model {
  title: String!
  author: User @relation(name: "PostAuthor")
}
`;

/** user01 … user44, plus ada, grace and under_score: 47 users. */
const NUMBERED = Array.from({ length: 44 }, (_, i) => `user${String(i + 1).padStart(2, '0')}`);
const PASSWORD = 'first-password-1';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let appId = '';
const ids = new Map<string, string>();

const missing = missingPrerequisite();

describe('console: users', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    appId = await createApp(server, 'forum', SCHEMA);
    const people = [
      ...NUMBERED.map((username) => ({ username, email: `${username}@example.com` })),
      { username: 'ada', email: 'ada@lovelace.example', displayName: 'Ada' },
      { username: 'grace', email: 'grace@hopper.example' },
      { username: 'under_score', email: 'underscore@example.com' },
    ];
    for (let i = 0; i < people.length; i += 10) {
      await Promise.all(
        people.slice(i, i + 10).map(async (p) => {
          const { body } = await api('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { ...p, password: PASSWORD } });
          ids.set(p.username, body.data.createUser.changedUser.id as string);
        }),
      );
    }
    const role = await api('mutation { createRole(input: { name: "editors" }) { changedRole { id } } }');
    await api('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r, accessLevel: readwrite }) { clientMutationId } }', {
      u: ids.get('ada'),
      r: role.body.data.createRole.changedRole.id,
    });
    for (const title of ['Notes on the Analytical Engine', 'Sketch of the engine']) {
      await api('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { title, authorId: ids.get('ada') } });
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

  it('lists the users page by page', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/schema`);
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: /^Users/ }).waitFor();
    await page.getByRole('status').getByText('47 users').waitFor();
    expect(await bodyRows()).toHaveLength(20);
    // Ordered by username: ada, grace, under_score, user01…
    expect((await usernames()).slice(0, 4)).toEqual(['ada', 'grace', 'under_score', 'user01']);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(usernames).toContain('user18');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(async () => (await bodyRows()).length).toBe(7);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(async () => (await bodyRows()).length).toBe(20);
    await screenshot(page, '17-users');
  });

  it('searches by username and email on the server, in any case', async () => {
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('LOVELACE');
    await page.getByRole('status').getByText('1 user', { exact: true }).waitFor();
    expect(await usernames()).toEqual(['ada']);
    expect(page.url()).toContain('?q=LOVELACE');

    await search.fill('USER0');
    await page.getByRole('status').getByText('9 users').waitFor();
    expect(await usernames()).toEqual(NUMBERED.slice(0, 9));

    // A `_` is a character to find, not a wildcard.
    await search.fill('_');
    await page.getByRole('status').getByText('1 user', { exact: true }).waitFor();
    expect(await usernames()).toEqual(['under_score']);

    await search.fill('nobody-has-this');
    await page.getByText('No user matches the search.').waitFor();

    // A shared link opens the same search.
    await page.goto(`${server.base}/console/apps/${appId}/users?q=hopper`);
    await page.getByRole('status').getByText('1 user', { exact: true }).waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('hopper');
  });

  it("opens a user with their fields, roles and relations", async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('ada');
    await page.getByRole('status').getByText('1 user', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'ada', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: /User ada/ }).waitFor();
    const fields = page.getByRole('region', { name: 'Fields' });
    expect(await fields.innerText()).toContain('ada@lovelace.example');
    expect(await page.getByLabel('User id', { exact: true }).inputValue()).toBe(ids.get('ada'));
    const roles = page.getByRole('region', { name: /^roles/ });
    await roles.getByRole('cell', { name: 'editors' }).waitFor();
    expect(await roles.getByRole('row', { name: /editors/ }).innerText()).toContain('readwrite');
    const posts = page.getByRole('region', { name: /^posts/ });
    await posts.getByRole('cell', { name: 'Sketch of the engine' }).waitFor();
    expect(await posts.locator('tbody tr').count()).toBe(2);
    // The account actions (tested in userAccounts.test.ts) are offered beside the others.
    expect(await page.getByRole('button', { name: 'Send verification mail' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'End all sessions' }).count()).toBe(1);
    await screenshot(page, '18-user');
  });

  it("edits the user's fields", async () => {
    await page.getByRole('button', { name: 'Edit user' }).click();
    const form = page.getByRole('form', { name: 'Edit User' });
    await form.getByLabel(/^displayName/).fill('Augusta Ada King');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Fields' }).innerText()).toContain('Augusta Ada King');
  });

  it("sets a new password: the user's old token stops working, the new password logs in", async () => {
    const before = await login('ada', PASSWORD);
    expect(before).toBeTruthy();
    expect(await viewerUsername(before ?? '')).toBe('ada');

    await page.getByRole('button', { name: 'Set a new password' }).click();
    const dialog = page.getByRole('dialog', { name: 'New password for ada' });
    await dialog.getByLabel('New password', { exact: true }).fill('second-password-2');
    await dialog.getByLabel('Repeat it').fill('second-password-');
    expect(await dialog.getByRole('button', { name: 'Set password' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Repeat it').fill('second-password-2');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await page.getByText(/Password changed\. Tokens issued to ada before now no longer work/).waitFor();

    expect(await viewerUsername(before ?? '')).toBe(401);
    expect(await login('ada', PASSWORD)).toBeNull();
    expect(await login('ada', 'second-password-2')).toBeTruthy();
  });

  it('deletes a user after confirmation', async () => {
    await page.goto(`${server.base}/console/apps/${appId}/users/${encodeURIComponent(ids.get('under_score') ?? '')}`);
    await page.getByRole('heading', { level: 1, name: /User under_score/ }).waitFor();
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('dialog', { name: 'Delete under_score?' }).getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('heading', { level: 1, name: /^Users/ }).waitFor();
    await page.getByRole('status').getByText('46 users').waitFor();
    const { body } = await api('query($id: ID!) { node(id: $id) { id } }', { id: ids.get('under_score') });
    expect(body.data.node).toBeNull();

    // Its page now says so.
    await page.goto(`${server.base}/console/apps/${appId}/users/${encodeURIComponent(ids.get('under_score') ?? '')}`);
    await page.getByText(/There is no user with id/).waitFor();
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

async function api(query: string, variables: Record<string, unknown> = {}) {
  const reply = await graphql(`${server.base}/graphql/${appId}`, server.key, query, variables);
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return reply;
}

async function login(username: string, password: string): Promise<string | null> {
  const { body } = await graphql(`${server.base}/graphql/${appId}`, null, 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username, password } });
  return (body.data?.loginUser?.token as string | undefined) ?? null;
}

/** The username a user token stands for, or the HTTP status when it is refused. */
async function viewerUsername(token: string): Promise<string | number> {
  const { status, body } = await graphql(`${server.base}/graphql/${appId}`, token, '{ viewer { user { username } } }');
  return status === 200 ? (body.data.viewer.user.username as string) : status;
}

async function bodyRows() {
  return page.locator('tbody tr').filter({ has: page.getByRole('link') }).all();
}

async function usernames(): Promise<string[]> {
  return page.locator('tbody tr td:first-child a').allInnerTexts();
}
