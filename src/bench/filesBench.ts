// `npm run bench -- files`: upload and download throughput of a 100 MiB file through a server
// keeping files on the local disk, next to copying the same bytes through a bare Node stream on
// the same disk; and the server's peak resident memory while it takes a 1 GiB upload (its
// bytes streamed from a file on disk by the client, in a process of its own); and the first
// (made) and a later (stored) request of image variants of a 12-megapixel photo.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
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

async function upload(endpoint: string, token: string, path: string): Promise<{ id: string; url: string; size: number }> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: 'mutation($i: CreateFileInput!) { createFile(input: $i) { changedFile { id url size } } }', variables: { i: { blob: null } } }));
  form.append('map', JSON.stringify({ 0: ['variables.i.blob'] }));
  form.append('0', await openAsBlob(path), 'bench.bin');
  const response = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await response.json()) as { data?: { createFile?: { changedFile: { id: string; url: string; size: number } } }; errors?: unknown };
  const file = body.data?.createFile?.changedFile;
  if (!file) throw new Error(`upload failed: ${JSON.stringify(body.errors)}`);
  return file;
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
    // One upload first, to warm the server up; the second is measured.
    await upload(endpoint, token, source);
    let url = '';
    const uploadSeconds = await timed(async () => {
      url = (await upload(endpoint, token, source)).url;
    });
    const downloadSeconds = await timed(async () => {
      const response = await fetch(url);
      await pipeline(Readable.fromWeb(response.body as never), createWriteStream(join(dir, 'download.bin')));
    });
    await rm(join(dir, 'download.bin'));
    const line = (label: string, seconds: number) => console.log(`  ${label.padEnd(52)} ${(size / seconds).toFixed(0).padStart(6)} MiB/s  (${seconds.toFixed(2)} s)`);
    line('bare Node stream copy, 100 MiB, same disk', copySeconds);
    line('upload (createFile, multipart), 100 MiB', uploadSeconds);
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
    const bigSeconds = await timed(() => upload(endpoint, token, big));
    clearInterval(poll);
    const after = await memoryOf(pid);
    console.log(`  ${'upload, 1 GiB'.padEnd(52)} ${(1024 / bigSeconds).toFixed(0).padStart(6)} MiB/s  (${bigSeconds.toFixed(2)} s)`);
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
