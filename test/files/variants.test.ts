// Image variants through the real server, on both stores and both storage drivers: `url(transform:)`
// resizes (each fit) and converts real images, decoded again with sharp; the variant is made
// once and kept beside the original (then served from storage, with ETag, Range and 304); its
// URL signs the transform, so a changed one is 403; the caller's rules decide who gets a URL;
// non-images and oversized originals answer coded 4xx; bad arguments are BAD_USER_INPUT; and
// deleting the File or its app removes its variants.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskStorage, FileUrlSigner } from '../../src/files/index.js';
import { ImageVariants, MAX_VARIANTS_AT_ONCE, MAX_VARIANTS_PER_FILE, variantKey } from '../../src/files/variants.js';
import { decodeAnyId } from '../../src/model/index.js';
import { admin, STORE_KINDS } from '../server/harness.js';
import { DRIVER_KINDS, createTestApp, eventually, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, TestApp } from './harness.js';

const COMBOS = STORE_KINDS.flatMap((kind) => DRIVER_KINDS.map((driver) => [kind, driver] as const));
const SECRET = 'a test secret of the file urls';
const GET_URL = 'query($id: ID!, $t: FileTransform) { getFile(id: $id) { url(transform: $t) } }';
const DELETE = 'mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { name } } }';

/** A 400 × 300 image: red on the left half, blue on the right, so crops and letterboxes show. */
async function photo(format: 'png' | 'jpeg'): Promise<Buffer> {
  const half = await sharp({ create: { width: 200, height: 300, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toBuffer();
  return sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([{ input: half, left: 200, top: 0 }])
    .toFormat(format)
    .toBuffer();
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code ?? '';
}

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** A File's key in storage, `<appId>/<row uuid>`. */
function keyOf(app: TestApp, file: { id: string }): string {
  return `${app.id}/${decodeAnyId(file.id)?.uuid}`;
}

/** Every stored key under `prefix` (`<appId>/…`), on either driver; temporary files included. */
async function keysUnder(fs: FileServer, prefix: string): Promise<string[]> {
  if (fs.s3) return fs.s3.keys(prefix);
  const root = (fs.storage as DiskStorage).root;
  const app = prefix.slice(0, prefix.indexOf('/'));
  const entries = await readdir(join(root, app), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((key) => key.startsWith(prefix));
}

describe.each(COMBOS)('image variants (%s store, %s storage)', (kind, driver) => {
  let fs: FileServer;
  let app: TestApp;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let png: { id: string; url: string; sha256: string };
  let jpeg: { id: string; url: string };

  const variantUrl = async (id: string, t: Record<string, unknown>, as = alice): Promise<string> => {
    const reply = await app.gql(GET_URL, { id, t }, as);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.getFile.url;
  };

  beforeAll(async () => {
    fs = await startFileServer(kind, driver);
    app = await createTestApp(fs.server, '');
    alice = (await signUp(app, 'alice')).headers;
    bob = (await signUp(app, 'bob')).headers;
    png = (await uploadFile(app, alice, { filename: 'holiday photo.png', type: 'image/png', bytes: await photo('png') })).body.data.createFile.changedFile;
    jpeg = (await uploadFile(app, alice, { filename: 'snap.jpeg', type: 'image/jpeg', bytes: await photo('jpeg') })).body.data.createFile.changedFile;
  });
  afterAll(async () => fs?.close());

  it('resizes to a width, keeping the aspect ratio and the format, with the headers of a download', async () => {
    const url = await variantUrl(png.id, { width: 100 });
    expect(url).toMatch(/\?variant=w100-cover&expires=\d+&signature=[0-9a-f]{64}$/);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    const body = await bytesOf(response);
    expect(await sharp(body).metadata()).toMatchObject({ format: 'png', width: 100, height: 75 });
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(body.length));
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(response.headers.get('etag')).not.toBe(`"${png.sha256}"`);
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="holiday photo.png"; filename*=UTF-8''holiday%20photo.png`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    // The plain url is the file itself, as before.
    const plain = (await app.gql('query($id: ID!) { getFile(id: $id) { url } }', { id: png.id }, alice)).body.data.getFile.url;
    expect(plain).toMatch(/\/files\/[a-z0-9]+\/[^?]+\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(await sharp(await bytesOf(await fetch(plain))).metadata()).toMatchObject({ width: 400, height: 300 });
  });

  it('fills a box of both sides as each fit says', async () => {
    const box = (fit: string) => `url(transform: { width: 100, height: 100, fit: ${fit} })`;
    const reply = await app.gql(
      `query($id: ID!) { getFile(id: $id) {
        cover: ${box('COVER')} contain: ${box('CONTAIN')} fill: ${box('FILL')} inside: ${box('INSIDE')} outside: ${box('OUTSIDE')}
        byDefault: url(transform: { width: 100, height: 100 })
      } }`,
      { id: png.id },
      alice,
    );
    const urls = reply.body.data.getFile;
    const sizes: Record<string, [number, number]> = { cover: [100, 100], contain: [100, 100], fill: [100, 100], inside: [100, 75], outside: [133, 100], byDefault: [100, 100] };
    const pixels: Record<string, { left: number[]; top: number[] }> = {};
    for (const [fit, [width, height]] of Object.entries(sizes)) {
      const body = await bytesOf(await fetch(urls[fit]));
      expect(await sharp(body).metadata(), fit).toMatchObject({ width, height });
      const { data: raw, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...raw.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      pixels[fit] = { left: at(2, Math.floor(height / 2)), top: at(Math.floor(width / 4), 1) };
    }
    // cover crops the sides (the middle of red-then-blue: red at the left edge, no bars);
    // contain letterboxes (black bars above and below); fill squeezes the whole width in.
    expect(pixels.cover?.top).toEqual([255, 0, 0]);
    expect(pixels.contain?.top).toEqual([0, 0, 0]);
    expect(pixels.contain?.left).toEqual([255, 0, 0]);
    expect(pixels.fill?.top).toEqual([255, 0, 0]);
    expect(pixels.byDefault).toEqual(pixels.cover);
  });

  it('converts to each format, with its media type and file extension', async () => {
    const expected = { JPEG: ['jpeg', 'image/jpeg', 'jpg'], PNG: ['png', 'image/png', 'png'], WEBP: ['webp', 'image/webp', 'webp'], AVIF: ['heif', 'image/avif', 'avif'] } as const;
    for (const [format, [decoded, type, extension]] of Object.entries(expected)) {
      const response = await fetch(await variantUrl(jpeg.id, { format }));
      expect(response.status, format).toBe(200);
      expect(response.headers.get('content-type'), format).toBe(type);
      expect(response.headers.get('content-disposition'), format).toContain(`filename="snap.${extension}"`);
      // A format alone keeps the size.
      expect(await sharp(await bytesOf(response)).metadata(), format).toMatchObject({ format: decoded, width: 400, height: 300 });
    }
    const both = await fetch(await variantUrl(jpeg.id, { width: 40, height: 40, format: 'WEBP' }));
    expect(await sharp(await bytesOf(both)).metadata()).toMatchObject({ format: 'webp', width: 40, height: 40 });
  });

  it('makes a variant once and serves it from storage afterwards', async () => {
    const url = await variantUrl(png.id, { width: 50 });
    const first = await fetch(url);
    const body = await bytesOf(first);
    const keys = await keysUnder(fs, `${keyOf(app, png)}.variants/`);
    const variantKeys = keys.filter((k) => k.endsWith('/w50-cover.png'));
    expect(variantKeys).toHaveLength(1);
    const key = variantKeys[0] as string;
    expect(await fs.storage.size(key)).toBe(body.length);
    const again = await fetch(url);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await bytesOf(again)).equals(body)).toBe(true);
    // What is stored is what is served: change it, and the next answer is the stored bytes.
    await fs.storage.put(key, Readable.from([Buffer.from('kept bytes')]), 100);
    const cached = await fetch(url);
    expect((await bytesOf(cached)).toString()).toBe('kept bytes');
    expect(cached.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('serves byte ranges, 304 and HEAD of a variant', async () => {
    const url = await variantUrl(png.id, { width: 120, format: 'WEBP' });
    const whole = await bytesOf(await fetch(url));
    const part = await fetch(url, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${whole.length}`);
    expect(part.headers.get('content-length')).toBe('100');
    expect((await bytesOf(part)).equals(whole.subarray(0, 100))).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect((await bytesOf(tail)).equals(whole.subarray(whole.length - 10))).toBe(true);
    const past = await fetch(url, { headers: { range: `bytes=${whole.length}-` } });
    expect(past.status).toBe(416);
    await past.arrayBuffer();
    const etag = (await fetch(url, { method: 'HEAD' })).headers.get('etag') as string;
    const notModified = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    // The original's ETag is not the variant's.
    const other = await fetch(url, { headers: { 'if-none-match': `"${png.sha256}"` } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });

  it('gives concurrent first requests of one variant the same bytes, stored once', async () => {
    const url = await variantUrl(jpeg.id, { width: 64, height: 48, fit: 'FILL' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => fetch(url)));
    const bodies = await Promise.all(answers.map(bytesOf));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
    for (const body of bodies) expect(body.equals(bodies[0] as Buffer)).toBe(true);
    expect(await sharp(bodies[0]).metadata()).toMatchObject({ width: 64, height: 48, format: 'jpeg' });
    const stored = (await keysUnder(fs, `${app.id}/`)).filter((k) => k.includes(`.variants/`) && k.includes('w64-h48-fill'));
    expect(stored).toEqual([expect.stringMatching(/\/w64-h48-fill\.jpeg$/)]);
  });

  it('refuses a URL whose transform was changed, added or dropped (403)', async () => {
    const url = new URL(await variantUrl(png.id, { width: 100 }));
    const expires = url.searchParams.get('expires') as string;
    const signature = url.searchParams.get('signature') as string;
    const base = `${url.origin}${url.pathname}`;
    const plainUrl = new URL((await app.gql('query($id: ID!) { getFile(id: $id) { url } }', { id: png.id }, alice)).body.data.getFile.url);
    const tries: [string, string][] = [
      ['a larger width', `${base}?variant=w4000-cover&expires=${expires}&signature=${signature}`],
      ['another fit', `${base}?variant=w100-fill&expires=${expires}&signature=${signature}`],
      ['the variant dropped', `${base}?expires=${expires}&signature=${signature}`],
      ['a variant added to the plain url', `${base}?variant=w100-cover&expires=${plainUrl.searchParams.get('expires')}&signature=${plainUrl.searchParams.get('signature')}`],
      ['an empty variant', `${base}?variant=&expires=${expires}&signature=${signature}`],
      ['two variants', `${base}?variant=w100-cover&variant=w100-cover&expires=${expires}&signature=${signature}`],
    ];
    for (const [what, tampered] of tries) {
      const response = await fetch(tampered);
      expect(response.status, what).toBe(403);
      expect(await codeOf(response), what).toBe('FORBIDDEN');
    }
    // Signed with this server's key, but not a variant name it makes.
    for (const name of ['w0-cover', 'w5000-cover', 'w100', 'cover', 'w100-cover-cover', '../../x', 'h10-w10-cover', 'gif']) {
      const later = Math.floor(Date.now() / 1000) + 600;
      const forged = await fetch(`${base}?variant=${encodeURIComponent(name)}&expires=${later}&signature=${new FileUrlSigner(SECRET).sign(app.id, png.id, later, name)}`);
      expect(forged.status, name).toBe(403);
      await forged.arrayBuffer();
    }
  });

  it("gives no variant URL of another user's file, and no other file with one's signature", async () => {
    const reply = await app.gql(GET_URL, { id: png.id, t: { width: 100 } }, bob);
    expect(reply.body.data.getFile).toBeNull();
    const listed = await app.gql('{ viewer { allFiles { edges { node { url(transform: { width: 10 }) } } } } }', {}, bob);
    expect(listed.body.data.viewer.allFiles.edges).toEqual([]);
    const bobsFile = (await uploadFile(app, bob, { filename: 'b.png', type: 'image/png', bytes: await photo('png') })).body.data.createFile.changedFile;
    const url = new URL(await variantUrl(bobsFile.id, { width: 100 }, bob));
    const swapped = await fetch(`${url.origin}/files/${app.id}/${png.id}${url.search}`);
    expect(swapped.status).toBe(403);
    const elsewhere = await createTestApp(fs.server, '');
    const moved = await fetch(`${url.origin}/files/${elsewhere.id}/${bobsFile.id}${url.search}`);
    expect(moved.status).toBe(403);
    await moved.arrayBuffer();
  });

  it('answers a coded 4xx for a file that is not an image, and stores nothing', async () => {
    const cases = [
      { filename: 'notes.txt', type: 'text/plain', bytes: 'just some text' },
      { filename: 'fake.png', type: 'image/png', bytes: 'not really a png' },
      { filename: 'cut.png', type: 'image/png', bytes: (await photo('png')).subarray(0, 60) },
      { filename: 'drawing.svg', type: 'image/svg+xml', bytes: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>' },
    ];
    for (const file of cases) {
      const created = (await uploadFile(app, alice, file)).body.data.createFile.changedFile;
      const response = await fetch(await variantUrl(created.id, { width: 10 }));
      expect(response.status, file.filename).toBe(415);
      expect(await codeOf(response), file.filename).toBe('BAD_USER_INPUT');
      expect(await keysUnder(fs, `${keyOf(app, created)}.variants/`), file.filename).toEqual([]);
    }
  });

  it('refuses bad transform arguments with BAD_USER_INPUT', async () => {
    const bad: Record<string, unknown>[] = [{ width: 4097 }, { width: 0 }, { height: -5 }, {}, { fit: 'FILL' }];
    for (const t of bad) {
      const reply = await app.gql(GET_URL, { id: png.id, t }, alice);
      expect(reply.body.errors?.[0]?.extensions.code, JSON.stringify(t)).toBe('BAD_USER_INPUT');
      expect(reply.body.errors?.[0]?.message, JSON.stringify(t)).toContain('transform');
      expect(reply.body.data?.getFile?.url ?? null).toBeNull();
    }
    const literal = await app.gql(`{ getFile(id: "${png.id}") { url(transform: { width: 100000 }) } }`, {}, alice);
    expect(literal.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const leaf = await app.gql('query($w: Int) { viewer { allFiles { edges { node { url(transform: { width: $w }) } } } } }', { w: 5000 }, alice);
    expect(leaf.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const wrongEnum = await app.gql(GET_URL, { id: png.id, t: { width: 10, format: 'BMP' } }, alice);
    expect(wrongEnum.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    // The bound itself is fine.
    expect(await variantUrl(png.id, { width: 4096, height: 1 })).toContain('variant=w4096-h1-cover');
  });

  it("keeps an app's own type named FileFormat: the argument's enum takes another name", async () => {
    const own = await createTestApp(fs.server, 'enum FileFormat { PAPER SCREEN }\ntype Doc @model { format: FileFormat }');
    const file = await own.data('{ __type(name: "File") { fields { name args { type { name inputFields { name type { name } } } } } } }');
    const transform = file.__type.fields.find((f: { name: string }) => f.name === 'url').args[0].type;
    expect(transform.name).toBe('FileTransform');
    expect(Object.fromEntries(transform.inputFields.map((f: { name: string; type: { name: string } }) => [f.name, f.type.name]))).toMatchObject({ fit: 'FileFit', format: 'FileFormat2' });
    expect((await own.data('{ __type(name: "FileFormat") { enumValues { name } } }')).__type.enumValues.map((v: { name: string }) => v.name)).toEqual(['PAPER', 'SCREEN']);
  });

  it('keeps at most MAX_VARIANTS_PER_FILE variants of a file, a burst of new transforms included; past that LIMIT_EXCEEDED, and those made are still served', async () => {
    const bytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 0, g: 128, b: 0 } } }).png().toBuffer();
    const small = (await uploadFile(app, alice, { filename: 'tiny.png', type: 'image/png', bytes })).body.data.createFile.changedFile;
    // More distinct transforms than a file may have. On disk all are asked for at once (an
    // attacker's burst); the S3 test server fails a listing that meets an object being written
    // (real S3 lists atomically), so there they come one after another.
    const burst = driver === 'disk';
    const urls = await Promise.all(Array.from({ length: MAX_VARIANTS_PER_FILE + 6 }, (_, i) => variantUrl(small.id, { width: i + 1 })));
    const ask = async (url: string): Promise<string> => {
      const response = await fetch(url);
      if (response.status === 200) return (await bytesOf(response)).length > 0 ? 'made' : 'empty';
      return `${response.status} ${await codeOf(response)}`;
    };
    const answers: string[] = [];
    if (burst) answers.push(...(await Promise.all(urls.map(ask))));
    else for (const url of urls) answers.push(await ask(url));
    const made = answers.filter((a) => a === 'made').length;
    // Counted one turn at a time: at most one more than the limit while two are made at once.
    expect(made, answers.join(', ')).toBeGreaterThanOrEqual(MAX_VARIANTS_PER_FILE);
    expect(made, answers.join(', ')).toBeLessThanOrEqual(MAX_VARIANTS_PER_FILE + (burst ? MAX_VARIANTS_AT_ONCE - 1 : 0));
    expect(new Set(answers.filter((a) => a !== 'made'))).toEqual(new Set(['400 LIMIT_EXCEEDED']));
    expect(await keysUnder(fs, `${keyOf(app, small)}.variants/`)).toHaveLength(made);
    // A new one alone is refused too, storing nothing; one made before is still served.
    const refused = await fetch(await variantUrl(small.id, { width: 63, format: 'WEBP' }));
    expect(await codeOf(refused)).toBe('LIMIT_EXCEEDED');
    expect(await keysUnder(fs, `${keyOf(app, small)}.variants/`)).toHaveLength(made);
    const again = await fetch(urls[answers.indexOf('made')] as string);
    expect(again.status).toBe(200);
    expect((await sharp(await bytesOf(again)).metadata()).format).toBe('png');
  });

  it('removes the variants with the File, and with the app', async () => {
    const doomed = (await uploadFile(app, alice, { filename: 'd.png', type: 'image/png', bytes: await photo('png') })).body.data.createFile.changedFile;
    for (const t of [{ width: 10 }, { format: 'WEBP' }]) expect((await fetch(await variantUrl(doomed.id, t))).status).toBe(200);
    expect(await keysUnder(fs, keyOf(app, doomed))).toHaveLength(3);
    expect((await app.gql(DELETE, { i: { id: doomed.id } }, alice)).body.data.deleteFile.changedFile.name).toBe('d.png');
    expect(await eventually(async () => (await keysUnder(fs, keyOf(app, doomed))).length === 0)).toBe(true);
    // The app's other files and variants stay.
    expect((await keysUnder(fs, `${keyOf(app, png)}.variants/`)).length).toBeGreaterThan(0);

    const other = await createTestApp(fs.server, '');
    const carol = (await signUp(other, 'carol')).headers;
    const file = (await uploadFile(other, carol, { filename: 'c.png', type: 'image/png', bytes: await photo('png') })).body.data.createFile.changedFile;
    const reply = await other.gql(GET_URL, { id: file.id, t: { width: 20 } }, carol);
    expect((await fetch(reply.body.data.getFile.url)).status).toBe(200);
    expect(await keysUnder(fs, `${other.id}/`)).toHaveLength(2);
    await admin(fs.server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: other.id } });
    expect(await eventually(async () => (await keysUnder(fs, `${other.id}/`)).length === 0)).toBe(true);
  });
});

describe('image variants of large originals', () => {
  it('refuses an original over the pixel limit with LIMIT_EXCEEDED, storing nothing', async () => {
    const fs = await startFileServer('embedded', 'disk');
    try {
      const app = await createTestApp(fs.server, '');
      const alice = (await signUp(app, 'alice')).headers;
      // 8000 × 6400 = 51.2 megapixels of one colour: a small PNG.
      const bytes = await sharp({ create: { width: 8000, height: 6400, channels: 3, background: { r: 9, g: 9, b: 9 } } }).png().toBuffer();
      const file = (await uploadFile(app, alice, { filename: 'huge.png', type: 'image/png', bytes })).body.data.createFile.changedFile;
      const reply = await app.gql(GET_URL, { id: file.id, t: { width: 100 } }, alice);
      const response = await fetch(reply.body.data.getFile.url);
      expect(response.status).toBe(400);
      expect(await codeOf(response)).toBe('LIMIT_EXCEEDED');
      expect(await keysUnder(fs, `${keyOf(app, file)}.variants/`)).toEqual([]);
    } finally {
      await fs.close();
    }
  });
});

describe('variants made at once', () => {
  it('makes at most MAX_VARIANTS_AT_ONCE at a time; the others wait their turn and are all made', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tessera-variants-'));
    let running = 0;
    let most = 0;
    // The real disk driver, with its writes counted while they are under way.
    class CountingDisk extends DiskStorage {
      override async put(key: string, body: Readable, maxBytes: number) {
        running += 1;
        most = Math.max(most, running);
        try {
          return await super.put(key, body, maxBytes);
        } finally {
          running -= 1;
        }
      }
    }
    const disk = new DiskStorage(root);
    const counted = new CountingDisk(root);
    try {
      const original = 'appvariants1/0b8f0c38-8d51-4c3b-9d53-5d4c1e6f7a01';
      await disk.put(original, Readable.from([await photo('png')]), 10_000_000);
      const variants = new ImageVariants(counted);
      const widths = [10, 20, 30, 40, 50, 60, 70, 80];
      const made = await Promise.all(widths.map((width) => variants.ensure(original, variantKey(original, { width, fit: 'cover' }, 'png'), { width, fit: 'cover' }, 'png')));
      expect(made.every((m) => m.made && m.size > 0)).toBe(true);
      expect(most).toBe(MAX_VARIANTS_AT_ONCE);
      for (const width of widths) {
        const stored = await disk.get(variantKey(original, { width, fit: 'cover' }, 'png'));
        expect((await sharp(await buffer(stored as Readable)).metadata()).width).toBe(width);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
