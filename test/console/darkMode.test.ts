// End-to-end: the console follows the system's colour scheme. The same pages are opened in a
// light and in a dark browser (Playwright's colorScheme emulation); their computed colours must
// differ, and every piece of text on them must stay readable: a WCAG contrast ratio of at least
// 4.5 between its colour and the background it is drawn on, in both schemes.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_FILE, multipart, startFileServer } from '../files/harness.js';
import type { FileServer } from '../files/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, graphql, launchBrowser, missingPrerequisite, openPage, screenshot, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type Author @model {
  name: String!
  books: [Book] @relation(name: "AuthorBooks")
}

type Book @model {
  title: String!
  pages: Int
  author: Author @relation(name: "AuthorBooks")
}
`;

/** What the page measures for each piece of visible text: its colours and their contrast. */
interface TextSample {
  where: string;
  text: string;
  color: string;
  background: string;
  ratio: number;
}

/**
 * Read in the page: every element with text of its own (and every form control), its text
 * colour and the colour it is drawn on — the first opaque background among its ancestors, or
 * for the diagram's SVG text the fill of the shape behind it — and the WCAG contrast ratio.
 */
const READ_TEXT = `(() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = ({ r, g, b }) => {
    const ch = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const backgroundOf = (el) => {
    if (el instanceof SVGElement) {
      const group = el.closest('g');
      const shape = group && group.querySelector('rect');
      if (shape) return parse(getComputedStyle(shape).fill);
    }
    for (let node = el; node; node = node.parentElement) {
      const bg = parse(getComputedStyle(node).backgroundColor);
      if (bg && bg.a >= 0.5) return bg;
    }
    return parse(getComputedStyle(document.documentElement).backgroundColor);
  };
  const skip = (el) => el.closest('.visually-hidden, .monaco-editor, .graphiql-container, .skip-link, option, title, [hidden]') || el.closest(':disabled');
  const ownText = (el) => [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const control = el.matches('input:not([type=checkbox]):not([type=radio]), select, textarea');
    const text = control ? (el.value || '') : ownText(el);
    if (!text || skip(el)) continue;
    const rects = el.getClientRects();
    const style = getComputedStyle(el);
    if (rects.length === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    const color = parse(el instanceof SVGElement ? style.fill : style.color);
    const background = backgroundOf(el);
    if (!color || !background) continue;
    const name = el.tagName.toLowerCase() + (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\\s+/).join('.') : '');
    out.push({ where: name, text: text.slice(0, 40), color: style.color && !(el instanceof SVGElement) ? style.color : style.fill, background: 'rgb(' + [background.r, background.g, background.b].join(', ') + ')', ratio: Math.round(ratio(color, background) * 100) / 100 });
  }
  return out;
})()`;

/** The page's own background and text colour. */
const READ_BASE = `(() => { const s = getComputedStyle(document.documentElement); return { background: s.backgroundColor, color: s.color }; })()`;

let files: FileServer;
let server: TestServer;
let browser: Browser;
let appId = '';
const contexts: BrowserContext[] = [];
const problems: PageProblems[] = [];

const missing = missingPrerequisite();

describe('console: dark mode', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    files = await startFileServer('embedded', 'disk');
    server = files.server;
    appId = await createApp(server, 'library', SCHEMA);
    const api = (query: string) => graphql(`${server.base}/graphql/${appId}`, server.key, query);
    const author = await api('mutation { createAuthor(input: { name: "Octavia E. Butler" }) { changedAuthor { id } } }');
    const authorId = author.body.data.createAuthor.changedAuthor.id as string;
    await api(`mutation { createBook(input: { title: "Kindred", pages: 264, authorId: "${authorId}" }) { changedBook { id } } }`);
    await api('mutation { createUser(input: { username: "lauren", password: "earthseed-1", email: "lauren@acorn.example" }) { changedUser { id } } }');
    const cover = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2952cc' } }).png().toBuffer();
    const upload = await multipart({ endpoint: `${server.base}/graphql/${appId}` }, { query: CREATE_FILE, variables: { input: { blob: null } } }, { 0: ['variables.input.blob'] }, [{ name: '0', filename: 'cover.png', type: 'image/png', bytes: cover }], {
      authorization: `Bearer ${server.key}`,
    });
    expect(upload.body.errors).toBeUndefined();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await files?.close();
  });

  it('follows the system setting: light and dark pages differ in their computed colours', async () => {
    const light = await open('light');
    const dark = await open('dark');
    for (const page of [light, dark]) await page.goto(`${server.base}/console/apps/${appId}/data/Book`);
    for (const page of [light, dark]) await page.getByRole('cell', { name: 'Kindred' }).waitFor();
    const [l, d] = [await base(light), await base(dark)];
    expect(l.background).not.toBe(d.background);
    expect(l.color).not.toBe(d.color);
    expect(luminance(l.background)).toBeGreaterThan(0.8);
    expect(luminance(d.background)).toBeLessThan(0.05);
    expect(luminance(d.color)).toBeGreaterThan(0.7);
    // Native controls follow too (color-scheme), and a table header is not a light band on a dark page.
    const header = (page: Page) => page.evaluate<string>("getComputedStyle(document.querySelector('th')).backgroundColor");
    expect(luminance(await header(dark))).toBeLessThan(0.05);
    await screenshot(dark, '22-dark-data');

    // A change of the system setting applies at once, without a reload.
    await light.emulateMedia({ colorScheme: 'dark' });
    expect((await base(light)).background).toBe(d.background);
    await light.emulateMedia({ colorScheme: 'light' });
    expect((await base(light)).background).toBe(l.background);
  });

  it('keeps text readable (contrast of at least 4.5) on every page, in both schemes', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(scheme);
      const check = async (label: string) => {
        const samples = (await page.evaluate(READ_TEXT)) as TextSample[];
        checked += samples.length;
        for (const s of samples.filter((x) => x.ratio < 4.5)) failures.push(`${scheme} ${label}: ${s.where} "${s.text}" ${s.color} on ${s.background} = ${s.ratio}`);
        return samples;
      };

      await page.goto(`${server.base}/console/`);
      await page.locator('.app-card').first().waitFor();
      await check('apps');

      await page.goto(`${server.base}/console/apps/${appId}/schema`);
      await page.getByText('Valid schema').waitFor();
      await page.locator('.diagram svg g.diagram-edge').first().waitFor();
      const schema = await check('schema');
      // The diagram's field names and labels are among the texts checked.
      expect(schema.some((s) => s.where.startsWith('text.diagram-field'))).toBe(true);
      expect(schema.some((s) => s.where.startsWith('text.diagram-label'))).toBe(true);
      if (scheme === 'dark') {
        // The schema editor (Monaco) takes its dark theme.
        const editor = await page.evaluate<string>("getComputedStyle(document.querySelector('.monaco-editor .monaco-editor-background')).backgroundColor");
        expect(luminance(editor)).toBeLessThan(0.05);
        await screenshot(page, '21-dark-schema');
      }

      await page.goto(`${server.base}/console/apps/${appId}/data/Book`);
      await page.getByRole('cell', { name: 'Kindred' }).waitFor();
      await check('data');
      await page.getByRole('button', { name: /^Edit Book/ }).click();
      const picker = page.getByRole('form', { name: 'Edit Book' }).getByRole('combobox', { name: /^author/ });
      await picker.click();
      await page.getByRole('option', { name: /Octavia/ }).waitFor();
      await check('edit dialog with the relation picker open');
      if (scheme === 'dark') await screenshot(page, '23-dark-picker', false);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');

      await page.goto(`${server.base}/console/apps/${appId}/data/File`);
      await page.getByRole('img', { name: 'Preview of cover.png' }).waitFor();
      const filesPage = await check('files');
      // The upload control and the file's cells are among the texts checked.
      expect(filesPage.some((s) => s.text.startsWith('Upload files'))).toBe(true);
      expect(filesPage.some((s) => s.where.startsWith('code.hash'))).toBe(true);

      await page.goto(`${server.base}/console/apps/${appId}/users`);
      await page.getByRole('cell', { name: 'not verified' }).waitFor();
      await check('users');
      await page.getByRole('link', { name: 'lauren' }).click();
      await page.getByRole('heading', { level: 1, name: /User lauren/ }).waitFor();
      await check('user');

      await page.goto(`${server.base}/console/apps/${appId}/settings`);
      await page.getByLabel('Query depth').fill('0');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('alert').getByText('BAD_USER_INPUT').waitFor();
      await check('settings with a refused value');

      await page.goto(`${server.base}/console/apps/${appId}/traffic`);
      await page.getByRole('img', { name: /^Operations per minute/ }).waitFor();
      await page.getByText(/^The figures as a table/).click();
      const traffic = await check('traffic');
      // The charts' axis labels are among the texts checked.
      expect(traffic.some((s) => s.where === 'text' && /\d:\d\d/.test(s.text))).toBe(true);

      await page.goto(`${server.base}/console/apps/${appId}/tokens`);
      await page.getByText('No live admin tokens.').waitFor();
      await check('tokens');

      await page.goto(`${server.base}/console/apps/${appId}/functions`);
      await page.getByText('No functions yet.').waitFor();
      await check('functions');
    }
    expect(checked).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.flatMap((p) => p.list)).toEqual([]);
  });
});

async function open(colorScheme: 'light' | 'dark'): Promise<Page> {
  const opened = await openPage(browser, undefined, colorScheme);
  contexts.push(opened.context);
  problems.push(opened.problems);
  await signIn(opened.page, server);
  return opened.page;
}

async function base(page: Page): Promise<{ background: string; color: string }> {
  return (await page.evaluate(READ_BASE)) as { background: string; color: string };
}

/** Relative luminance (WCAG) of a computed `rgb(…)` colour. */
function luminance(css: string): number {
  const [r = 0, g = 0, b = 0] = (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? '').split(/[\s,/]+/).filter(Boolean).map(Number);
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
