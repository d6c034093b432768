// End-to-end: the schema page's diagram in headless Chromium, checked geometrically. For a
// schema with relations of every shape (neighbouring and distant boxes, across rows, in one
// column, self relations), the lines are read back from the rendered SVG and compared with the
// boxes and the text boxes the browser measured for every type and field name.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createApp, launchBrowser, missingPrerequisite, openPage, screenshotOf, signIn } from './harness.js';
import type { PageProblems } from './harness.js';

const SCHEMA = `type User @model {
  displayName: String
  posts: [Post] @relation(name: "PostAuthor")
  edits: [Post] @relation(name: "UserEdits")
  friends: [User] @relation(name: "Friendship")
  following: [User] @relation(name: "Follows")
  followers: [User] @relation(name: "Follows")
  team: Team @relation(name: "TeamMembers")
  hometown: City @relation(name: "Hometown")
  comments: [Comment] @relation(name: "CommentAuthor")
}

type Post @model {
  title: String!
  body: Text
  author: User @relation(name: "PostAuthor")
  editors: [User] @relation(name: "UserEdits")
  comments: [Comment] @relation(name: "PostComments")
  tags: [Tag] @relation(name: "PostTags")
}

type Comment @model {
  text: String!
  author: User @relation(name: "CommentAuthor")
  post: Post @relation(name: "PostComments")
  replyTo: Comment @relation(name: "Replies")
  replies: [Comment] @relation(name: "Replies")
  flaggedTags: [Tag] @relation(name: "FlaggedTags")
}

type Tag @model {
  label: String! @unique
  posts: [Post] @relation(name: "PostTags")
  flaggedIn: [Comment] @relation(name: "FlaggedTags")
}

type Team @model {
  name: String!
  members: [User] @relation(name: "TeamMembers")
  country: Country @relation(name: "TeamCountry")
}

type Country @model {
  name: String!
  officialNamesInEveryLanguageSpokenThere: [String]
  teams: [Team] @relation(name: "TeamCountry")
  capital: City @relation(name: "CountryCapital")
}

type City @model {
  name: String!
  capitalOf: Country @relation(name: "CountryCapital")
  residents: [User] @relation(name: "Hometown")
}
`;

/** Every relation, with the fields at its two ends ([type, field]; a self relation that is its own reverse has one). */
const RELATIONS: Record<string, [string, string][]> = {
  PostAuthor: [['User', 'posts'], ['Post', 'author']],
  UserEdits: [['User', 'edits'], ['Post', 'editors']],
  Friendship: [['User', 'friends']],
  Follows: [['User', 'following'], ['User', 'followers']],
  TeamMembers: [['User', 'team'], ['Team', 'members']],
  Hometown: [['User', 'hometown'], ['City', 'residents']],
  CommentAuthor: [['User', 'comments'], ['Comment', 'author']],
  PostComments: [['Post', 'comments'], ['Comment', 'post']],
  PostTags: [['Post', 'tags'], ['Tag', 'posts']],
  Replies: [['Comment', 'replyTo'], ['Comment', 'replies']],
  FlaggedTags: [['Comment', 'flaggedTags'], ['Tag', 'flaggedIn']],
  TeamCountry: [['Team', 'country'], ['Country', 'teams']],
  CountryCapital: [['Country', 'capital'], ['City', 'capitalOf']],
};

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Drawn {
  boxes: { name: string; rect: Rect; title: Rect & { text: string }; fields: (Rect & { text: string })[] }[];
  edges: { relation: string; d: string }[];
  labels: (Rect & { text: string })[];
}

/** Read in the page: the rendered SVG's boxes, text boxes (as the browser measured them), lines and labels. */
const READ_DIAGRAM = `(() => {
  const box = (el) => { const b = el.getBBox(); return { x: b.x, y: b.y, w: b.width, h: b.height, text: el.firstChild ? el.firstChild.textContent : '' }; };
  const svg = document.querySelector('.diagram svg');
  return {
    boxes: [...svg.querySelectorAll('g.diagram-box')].map((g) => {
      const r = g.querySelector('rect');
      return {
        name: g.querySelector('text.diagram-title').textContent,
        rect: { x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'), h: +r.getAttribute('height') },
        title: box(g.querySelector('text.diagram-title')),
        fields: [...g.querySelectorAll('text.diagram-field')].map(box),
      };
    }),
    // Every line drawn, whatever element draws it.
    edges: [...svg.querySelectorAll('.diagram-link')].map((el) => ({
      relation: el.closest('[data-relation]') ? el.closest('[data-relation]').dataset.relation : '',
      d: el.tagName === 'line' ? ['M', el.getAttribute('x1'), el.getAttribute('y1'), 'L', el.getAttribute('x2'), el.getAttribute('y2')].join(' ') : el.getAttribute('d'),
    })),
    labels: [...svg.querySelectorAll('text.diagram-label')].map(box),
  };
})()`;

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let drawn: Drawn;

const missing = missingPrerequisite();

describe('console: schema diagram', () => {
  beforeAll(async () => {
    if (missing) throw new Error(`cannot run the console tests: ${missing}`);
    server = await startTestServer('embedded', { logLevel: 'warn' });
    const appId = await createApp(server, 'social', SCHEMA);
    browser = await launchBrowser();
    ({ context, page, problems } = await openPage(browser));
    await signIn(page, server);
    await page.goto(`${server.base}/console/apps/${appId}/schema`);
    await page.locator('.diagram svg .diagram-link').first().waitFor();
    drawn = (await page.evaluate(READ_DIAGRAM)) as Drawn;
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('draws a box per model type and one line per relation', async () => {
    expect(drawn.boxes.map((b) => b.name).sort()).toEqual(['City', 'Comment', 'Country', 'Post', 'Tag', 'Team', 'User']);
    expect(drawn.edges.map((e) => e.relation).sort()).toEqual(Object.keys(RELATIONS).sort());
    await screenshotOf(page.locator('.diagram'), '20-schema-diagram');
  });

  it('keeps every type and field name inside its box', () => {
    for (const box of drawn.boxes) {
      for (const text of [box.title, ...box.fields]) {
        expect(inside(text, box.rect), `${box.name}: "${text.text}" overflows its box`).toBe(true);
      }
    }
  });

  it('never draws a line over a type or field name, nor across a box', () => {
    const texts = drawn.boxes.flatMap((b) => [b.title, ...b.fields].map((t) => ({ ...t, where: `${b.name} "${t.text}"` })));
    for (const edge of drawn.edges) {
      const segments = segmentsOf(edge.d);
      expect(segments.length).toBeGreaterThan(0);
      for (const [a, b] of segments) {
        for (const text of texts) {
          expect(crosses(a, b, grow(text, 1)), `${edge.relation} crosses ${text.where}`).toBe(false);
        }
        for (const box of drawn.boxes) {
          // The inside of a box, short of its border: a line may touch a side where it ends, never pass through.
          expect(crosses(a, b, grow(box.rect, -1)), `${edge.relation} passes through the ${box.name} box`).toBe(false);
        }
      }
    }
  });

  it('starts and ends each line on the side of a box, at the row of the field it stands for', () => {
    for (const edge of drawn.edges) {
      const points = pointsOf(edge.d);
      const ends = [points[0], points[points.length - 1]];
      const fields = RELATIONS[edge.relation] ?? [];
      for (const end of ends) {
        expect(end, edge.relation).toBeDefined();
        const box = drawn.boxes.find((b) => onSide(end ?? { x: NaN, y: NaN }, b.rect));
        expect(box, `${edge.relation} ends at ${JSON.stringify(end)}, not on a box's side`).toBeDefined();
      }
      // Each field of the relation is where one of the ends meets its box (a self relation that
      // is its own reverse comes back to its box's title).
      for (const [type, field] of fields) {
        const box = drawn.boxes.find((b) => b.name === type);
        const text = box?.fields.find((f) => f.text.startsWith(`${field}:`));
        expect(text, `${type}.${field} is drawn`).toBeDefined();
        const meets = ends.some((p) => p !== undefined && box !== undefined && text !== undefined && onSide(p, box.rect) && p.y >= text.y && p.y <= text.y + text.h);
        expect(meets, `${edge.relation} meets ${type}.${field} at its row`).toBe(true);
      }
    }
  });

  it('puts every relation label clear of the boxes and of the other labels', () => {
    expect(drawn.labels).toHaveLength(drawn.edges.length);
    for (const label of drawn.labels) {
      for (const box of drawn.boxes) expect(overlap(label, box.rect), `label "${label.text}" over the ${box.name} box`).toBe(false);
    }
    drawn.labels.forEach((a, i) =>
      drawn.labels.slice(i + 1).forEach((b) => expect(overlap(a, b), `labels "${a.text}" and "${b.text}" overlap`).toBe(false)),
    );
  });

  it('reported no page errors, console errors or CSP violations', () => {
    expect(problems.list).toEqual([]);
  });
});

type Point = { x: number; y: number };

function pointsOf(d: string): Point[] {
  const numbers = d.match(/-?\d+(\.\d+)?/g)?.map(Number) ?? [];
  const points: Point[] = [];
  for (let i = 0; i + 1 < numbers.length; i += 2) points.push({ x: numbers[i] ?? NaN, y: numbers[i + 1] ?? NaN });
  return points;
}

function segmentsOf(d: string): [Point, Point][] {
  expect(d).toMatch(/^M [\d.-]+ [\d.-]+( L [\d.-]+ [\d.-]+)+$/);
  const points = pointsOf(d);
  return points.slice(1).map((p, i) => [points[i] as Point, p]);
}

function grow(r: Rect, by: number): Rect {
  return { x: r.x - by, y: r.y - by, w: r.w + 2 * by, h: r.h + 2 * by };
}

function inside(inner: Rect, outer: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

function overlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function onSide(p: Point, r: Rect): boolean {
  const near = (a: number, b: number) => Math.abs(a - b) <= 0.5;
  return (near(p.x, r.x) || near(p.x, r.x + r.w)) && p.y >= r.y && p.y <= r.y + r.h;
}

/** Whether the segment a–b passes through the inside of `r` (Liang–Barsky clipping). */
function crosses(a: Point, b: Point, r: Rect): boolean {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, a.x - r.x],
    [dx, r.x + r.w - a.x],
    [-dy, a.y - r.y],
    [dy, r.y + r.h - a.y],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 >= t1) return false;
  }
  return true;
}
