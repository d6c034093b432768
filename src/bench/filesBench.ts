// `npm run bench -- files`: upload and download throughput of a 100 MiB file through a server
// keeping files on the local disk, next to copying the same bytes through a bare Node stream on
// the same disk; and the server's peak resident memory while it takes a 1 GiB upload (its
// bytes streamed from a file on disk by the client, in a process of its own); and the first
// (made) and a later (stored) request of image variants of a 12-megapixel photo.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { generatePlatformKey } from '../server/index.js';

const MIB = 1024 * 1024;

async function fileOf(path: string, mib: number): Promise<void> {
  // Random bytes, a MiB written over and over: incompressible, and quick to make.
  const block = randomBytes(MIB);
  await pipeline(
    Readable.from((function* () {
      for (let i = 0; i < mib; i++) yield block;
    })()),
    createWriteStream(path),
  );
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

/** The peak and current resident memory of a process (Linux /proc), in MiB. */
async function memoryOf(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peak: kib('VmHWM') / 1024, now: kib('VmRSS') / 1024 };
}

async function gql(base: string, path: string, token: string, query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
  // any: the bench reads a few fields of known answers.
  const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown };
  if (body.errors || !body.data) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const OPERATIONS = JSON.stringify({ query: 'mutation($i: CreateFileInput!) { createFile(input: $i) { changedFile { id url size } } }', variables: { i: { blob: null } } });
const MAP = JSON.stringify({ 0: ['variables.i.blob'] });

type Uploaded = { id: string; url: string; size: number };

function fileOfAnswer(text: string): Uploaded {
  const body = JSON.parse(text) as { data?: { createFile?: { changedFile: Uploaded } }; errors?: unknown };
  const file = body.data?.createFile?.changedFile;
  if (!file) throw new Error(`upload failed: ${JSON.stringify(body.errors)}`);
  return file;
}

/** As a browser or Apollo Upload Client does: `fetch` with a FormData holding the file. */
async function upload(endpoint: string, token: string, path: string): Promise<Uploaded> {
  const form = new FormData();
  form.append('operations', OPERATIONS);
  form.append('map', MAP);
  form.append('0', await openAsBlob(path), 'bench.bin');
  const response = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return fileOfAnswer(await response.text());
}

/**
 * As curl does: the multipart body written straight from the file to the socket (`node:http`),
 * so the figure is the server's rather than the client's encoder (undici's FormData encoding
 * costs about as much CPU as the server's whole upload, on the same two cores).
 */
async function streamUpload(endpoint: string, token: string, path: string): Promise<Uploaded> {
  const boundary = `tessera-bench-${randomBytes(8).toString('hex')}`;
  const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(`${part('operations', OPERATIONS)}${part('map', MAP)}--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = (await stat(path)).size;
  return new Promise<Uploaded>((resolve, reject) => {
    const req = request(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          resolve(fileOfAnswer(text));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path, { highWaterMark: MIB });
    file.on('error', reject);
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
  });
}

export async function filesSection(): Promise<void> {
  console.log('Files: uploads and downloads through the server (local disk), next to a bare stream copy\n');
  const dir = await mkdtemp(join(tmpdir(), 'tessera-files-bench-'));
  const key = generatePlatformKey();
  const child = spawn(process.execPath, [new URL('./fileServer.js', import.meta.url).pathname, dir, key, process.env.TESSERA_BENCH_DATABASE_URL ?? ''], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
      child.once('exit', (code) => reject(new Error(`the bench server exited (${code})`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const created = await gql(base, '/admin/graphql', key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'filesbench', schema: '' } });
    const appId = created.createApp.app.id as string;
    const token = (await gql(base, '/admin/graphql', key, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 'bench' } })).createAdminToken.token as string;
    await gql(base, '/admin/graphql', key, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId, settings: { maxFileSize: 2 * 1024 * MIB - 1 } } });
    const endpoint = `${base}/graphql/${appId}`;

    const source = join(dir, 'source-100.bin');
    await fileOf(source, 100);
    const size = (await stat(source)).size / MIB;
    const copySeconds = await timed(() => pipeline(createReadStream(source), createWriteStream(join(dir, 'copy.bin'))));
    await rm(join(dir, 'copy.bin'));
    // One upload first, to warm the server up; the next ones are measured.
    await upload(endpoint, token, source);
    let url = '';
    const uploadSeconds = await timed(async () => {
      url = (await upload(endpoint, token, source)).url;
    });
    const streamSeconds = await timed(() => streamUpload(endpoint, token, source));
    const downloadSeconds = await timed(async () => {
      const response = await fetch(url);
      await pipeline(Readable.fromWeb(response.body as never), createWriteStream(join(dir, 'download.bin')));
    });
    await rm(join(dir, 'download.bin'));
    const line = (label: string, seconds: number) => console.log(`  ${label.padEnd(58)} ${(size / seconds).toFixed(0).padStart(6)} MiB/s  (${seconds.toFixed(2)} s)  ${(copySeconds / seconds).toFixed(2)}× the copy`);
    line('bare Node stream copy, 100 MiB, same disk', copySeconds);
    line('upload (createFile), fetch + FormData, 100 MiB', uploadSeconds);
    line('upload (createFile), body streamed by node:http, 100 MiB', streamSeconds);
    line('download (GET /files/…), 100 MiB', downloadSeconds);

    await variantTimes(dir, endpoint, token);

    const big = join(dir, 'source-1024.bin');
    await fileOf(big, 1024);
    const pid = child.pid as number;
    const before = await memoryOf(pid);
    // The peak so far (the embedded store's start-up) is forgotten: the peak read after the
    // upload is the upload's own (Linux: writing 5 to clear_refs resets VmHWM).
    const reset = await writeFile(`/proc/${pid}/clear_refs`, '5').then(() => true, () => false);
    let sampled = before.now;
    const poll = setInterval(() => {
      void memoryOf(pid).then((m) => {
        sampled = Math.max(sampled, m.now);
      }, () => undefined);
    }, 50);
    const bigSeconds = await timed(() => streamUpload(endpoint, token, big));
    clearInterval(poll);
    const after = await memoryOf(pid);
    console.log(`  ${'upload, 1 GiB, streamed by node:http'.padEnd(58)} ${(1024 / bigSeconds).toFixed(0).padStart(6)} MiB/s  (${bigSeconds.toFixed(2)} s)`);
    console.log(`  server resident memory during the 1 GiB upload: ${before.now.toFixed(0)} MiB before, peak ${(reset ? after.peak : sampled).toFixed(0)} MiB${reset ? '' : ' (sampled every 50 ms)'}, highest sample ${sampled.toFixed(0)} MiB`);
    await writeFile(join(dir, 'done'), '');
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Image variants of a 12-megapixel JPEG (4000 × 3000 of noise: the most a decoder has to do
 * for that size): each variant's first request, which makes it, then a later one, which
 * streams the stored copy; the whole answer read each time.
 */
async function variantTimes(dir: string, endpoint: string, token: string): Promise<void> {
  const photo = join(dir, 'photo-12mp.jpg');
  await sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } }).jpeg({ quality: 85 }).toFile(photo);
  const file = await upload(endpoint, token, photo);
  console.log(`\n  image variants of a 12-megapixel JPEG (${(file.size / MIB).toFixed(1)} MiB)`);
  const transforms: [string, Record<string, unknown>][] = [
    ['width 800, JPEG', { width: 800, format: 'JPEG' }],
    ['800 × 800 cover, WebP', { width: 800, height: 800, format: 'WEBP' }],
    ['width 200, AVIF', { width: 200, format: 'AVIF' }],
  ];
  for (const [label, transform] of transforms) {
    const query = 'query($id: ID!, $t: FileTransform) { getFile(id: $id) { url(transform: $t) } }';
    const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables: { id: file.id, t: transform } }) });
    const url = ((await response.json()) as { data: { getFile: { url: string } } }).data.getFile.url;
    let bytes = 0;
    const get = async () => {
      const answer = await fetch(url);
      if (answer.status !== 200) throw new Error(`variant ${label}: ${answer.status}`);
      bytes = (await answer.arrayBuffer()).byteLength;
    };
    const first = await timed(get);
    const stored = await timed(get);
    console.log(`  ${label.padEnd(28)} first request ${(first * 1000).toFixed(0).padStart(5)} ms, stored ${(stored * 1000).toFixed(1).padStart(5)} ms  (${(bytes / 1024).toFixed(1)} KiB)`);
  }
}
