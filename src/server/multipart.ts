// Uploads: multipart/form-data requests to an app's endpoint, parsed as a stream (busboy). Each
// file part streams into storage as it arrives — hashed, counted against the app's maxFileSize,
// recorded in the catalog as a pending upload first — and the request's operation reaches the
// GraphQL core with an UploadedBlob wherever the request puts that file: the GraphQL multipart
// request specification (`operations`, `map`, then the files) and the original service's form
// (`query`, `variables`, and a file part named by `input.blobFieldName`). Whatever upload no
// File has claimed once the answer is sent has its bytes removed. The part reader and the
// spec's operation (readParts, specOperation) also serve the management API's importApp upload.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { BusboyHeaders } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fileType } from '../compile/index.js';
import { TesseraError, badInput, isTesseraError, limitExceeded, notFound } from '../errors/index.js';
import type { BlobStorage } from '../files/index.js';
import { UploadedBlob } from '../graphql/index.js';
import { builtinTraits } from '../model/index.js';
import { expectUpload, fileKey, releaseUpload } from '../store/index.js';
import type { Store } from '../store/index.js';
import { unknownApp } from './appPorts.js';
import type { AppRegistry, LiveApp } from './appRegistry.js';

export interface MultipartOptions {
  registry: AppRegistry;
  storage: BlobStorage;
  /** Largest non-file part (`operations`, `map`, `query`, `variables`), as for a JSON body. */
  fieldLimit: number;
  /**
   * Checks the request's credential before any file is stored (throws UNAUTHENTICATED for a
   * refused one), so a bad token costs no storage.
   */
  identify?: (live: LiveApp, authorization: string | undefined) => Promise<unknown>;
  /** Uploads were released (their bytes can go now). */
  released?: () => void;
  onError?: (err: unknown) => void;
}

/** How long an upload's bytes wait for a File to claim them before they count as an orphan. */
export const UPLOAD_GRACE_SECONDS = 3600;
/** Most file parts one request may carry. */
export const MAX_FILES_PER_REQUEST = 20;

/** The uploads of one request, to release once it is answered. */
interface RequestUploads {
  appId: string;
  /** The store of the app's cluster, where the pending uploads are recorded. */
  store: Store;
  keys: string[];
}

export function installMultipart(scope: FastifyInstance, options: MultipartOptions): void {
  const uploads = new WeakMap<FastifyRequest, RequestUploads>();
  const release = async (request: FastifyRequest) => {
    const held = uploads.get(request);
    if (!held || held.keys.length === 0) return;
    uploads.delete(request);
    try {
      for (const key of held.keys) await releaseUpload(held.store, held.appId, key);
      options.released?.();
    } catch (err) {
      // Still pending in the catalog: removed as orphans once their grace has passed.
      options.onError?.(err);
    }
  };
  scope.addContentTypeParser('multipart/form-data', async (request: FastifyRequest, payload: IncomingMessage) => {
    const { appId } = request.params as { appId: string };
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    await options.identify?.(live, request.headers.authorization);
    const type = fileType(live.context);
    const blob = type && builtinTraits(type)?.blob;
    // An app whose File could not be added when it was loaded (docs/files.md).
    if (!blob) throw badInput('This app has no File type: it takes no uploads');
    const held: RequestUploads = { appId, store: live.store, keys: [] };
    uploads.set(request, held);
    const maxFileSize = live.context.app.settings.maxFileSize;
    // Each file streams into storage under a new key, recorded first as a pending upload: a
    // crash leaves an orphan the removal worker takes.
    const storeFile: FileSink<UploadedBlob> = (stream, filename, mimeType) => {
      const id = randomUUID();
      const key = fileKey(held.appId, id);
      held.keys.push(key);
      return (async () => {
        await expectUpload(held.store, held.appId, key, UPLOAD_GRACE_SECONDS);
        const stored = await options.storage.put(key, stream, maxFileSize);
        return new UploadedBlob(held.appId, id, key, partFilename(filename), mimeType, stored.size, stored.sha256);
      })();
    };
    try {
      const parts = await readParts(payload, request.headers, { fieldLimit: options.fieldLimit, maxFiles: MAX_FILES_PER_REQUEST }, storeFile);
      return operationOf(parts, blob.upload);
    } catch (err) {
      await release(request);
      throw err;
    }
  });
  scope.addHook('onResponse', async (request) => release(request));
  scope.addHook('onRequestAbort', async (request) => release(request));
}

export interface Parts<F> {
  fields: Map<string, string>;
  files: Map<string, F>;
}

/** Takes one file part's stream (the part's file name and media type as sent) to where it goes; what it made of it. */
export type FileSink<F> = (stream: Readable, filename: string, mimeType: string) => Promise<F>;

/**
 * Reads every part of a multipart body: fields as text (each at most `fieldLimit` bytes), files
 * handed to `sink` as they arrive (at most `maxFiles`). Rejects at the first failure, once every
 * file has settled (stored, or failed with nothing kept).
 */
export function readParts<F>(payload: IncomingMessage, headers: FastifyRequest['headers'], limits: { fieldLimit: number; maxFiles: number }, sink: FileSink<F>): Promise<Parts<F>> {
  const fields = new Map<string, string>();
  const jobs = new Map<string, Promise<F>>();
  const streams = new Set<Readable>();
  return new Promise<Parts<F>>((resolve, reject) => {
    let settled = false;
    const busboy = new Busboy({
      headers: headers as BusboyHeaders,
      limits: { fieldSize: limits.fieldLimit, fields: 100, files: limits.maxFiles, parts: limits.maxFiles + 100 },
    });
    // Every file has settled (stored, or failed with nothing kept) before the request fails:
    // no put may complete after its upload was released.
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      payload.unpipe(busboy);
      payload.resume();
      for (const stream of streams) stream.destroy(new Error('the request failed'));
      void Promise.allSettled(jobs.values()).then(() => reject(err));
    };
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(limitExceeded(`The multipart field ${JSON.stringify(name.slice(0, 40))} is larger than ${limits.fieldLimit} bytes`, 413));
      else fields.set(name, value);
    });
    busboy.on('file', (name, stream, filename, _encoding, mimeType) => {
      if (settled || jobs.has(name)) {
        stream.resume();
        if (jobs.has(name)) fail(badInput(`Two files are named ${JSON.stringify(name.slice(0, 40))} in one request`));
        return;
      }
      streams.add(stream);
      const job = sink(stream, filename ?? '', mimeType ?? '');
      job.then(() => streams.delete(stream), fail);
      jobs.set(name, job);
    });
    busboy.on('filesLimit', () => fail(limitExceeded(`A request may carry at most ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'}`, 413)));
    busboy.on('fieldsLimit', () => fail(limitExceeded('Too many multipart fields', 413)));
    busboy.on('partsLimit', () => fail(limitExceeded('Too many multipart parts', 413)));
    busboy.on('error', (err: unknown) => fail(badInput(`Malformed multipart body: ${err instanceof Error ? err.message : String(err)}`)));
    busboy.on('finish', () => {
      void Promise.all(jobs.values()).then(
        (stored) => {
          if (settled) return;
          settled = true;
          resolve({ fields, files: new Map([...jobs.keys()].map((name, i) => [name, stored[i] as F])) });
        },
        (err: unknown) => fail(err),
      );
    });
    // A client that goes away mid-upload: what was written of its files is removed.
    payload.on('aborted', () => fail(badInput('The request was aborted')));
    payload.on('close', () => {
      if (!payload.complete) fail(badInput('The request was aborted'));
    });
    payload.pipe(busboy);
  }).catch((err: unknown) => {
    throw isTesseraError(err) ? err : new TesseraError('BAD_USER_INPUT', 'The upload failed');
  });
}

/** A part's file name as the user named it: browsers (HTML's form encoding) escape `"`, CR and LF. */
function partFilename(filename: string | undefined): string {
  return (filename ?? '').replace(/%22|%0D|%0A/gi, (e) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[e.toUpperCase()] ?? e);
}

function parseJson(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badInput(`The multipart field "${name}" is not valid JSON`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The operation the parts carry, its Upload values set: the multipart spec or the original service's form. */
function operationOf(parts: Parts<UploadedBlob>, uploadField: string): Record<string, unknown> {
  if (parts.fields.has('operations')) return specOperation(parts);
  if (parts.fields.has('query')) return blobFieldNameOperation(parts, uploadField);
  throw badInput('A multipart request carries "operations" and "map" (the GraphQL multipart request specification), or "query" and "variables"');
}

/** The GraphQL multipart request specification: `operations`, and `map` from each file to the paths it fills. */
export function specOperation<F>(parts: Parts<F>): Record<string, unknown> {
  const operations = parseJson('operations', parts.fields.get('operations'));
  if (Array.isArray(operations)) throw badInput('Batched requests (an array of operations) are not supported; send one operation per request');
  if (!isObject(operations)) throw badInput('The multipart field "operations" must be a JSON object');
  const map = parseJson('map', parts.fields.get('map')) ?? {};
  if (!isObject(map)) throw badInput('The multipart field "map" must be a JSON object of file names to lists of paths');
  for (const [name, paths] of Object.entries(map)) {
    const file = parts.files.get(name);
    if (!file) throw badInput(`The map names a file "${name.slice(0, 40)}" the request does not carry`);
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
      throw badInput(`The map entry "${name.slice(0, 40)}" must be a list of paths such as "variables.input.blob"`);
    }
    for (const path of paths as string[]) place(operations, path, file);
  }
  return operations;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Puts `file` at a dotted path (`variables.input.files.0`) of the operation, where a null placeholder is. */
function place<F>(operations: Record<string, unknown>, path: string, file: F): void {
  const steps = path.split('.');
  if (steps[0] !== 'variables' || steps.length < 2 || steps.some((s) => s === '' || UNSAFE_KEYS.has(s))) {
    throw badInput(`The map path "${path.slice(0, 80)}" must lead into the variables (variables.<name>…)`);
  }
  let at: unknown = operations;
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    const container = at as Record<string, unknown> | unknown[];
    if (Array.isArray(container)) {
      const index = /^\d+$/.test(step) ? Number(step) : NaN;
      if (!(index < container.length)) throw badInput(`The map path "${path.slice(0, 80)}" leads nowhere in the variables`);
      if (last) container[index] = file;
      else at = container[index];
    } else if (isObject(container) && Object.hasOwn(container, step)) {
      if (last) container[step] = file;
      else at = container[step];
    } else {
      throw badInput(`The map path "${path.slice(0, 80)}" leads nowhere in the variables`);
    }
  }
}

/**
 * The original service's form: `query`, `variables` (JSON) and `operationName`; an input
 * object's `blobFieldName` names the part holding its file, which becomes its upload field.
 */
function blobFieldNameOperation(parts: Parts<UploadedBlob>, uploadField: string): Record<string, unknown> {
  const variables = parseJson('variables', parts.fields.get('variables')) ?? {};
  if (!isObject(variables)) throw badInput('The multipart field "variables" must be a JSON object');
  const visit = (value: unknown, depth: number): void => {
    if (depth > 32 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const object = value as Record<string, unknown>;
    const name = object.blobFieldName;
    if (typeof name === 'string') {
      const file = parts.files.get(name);
      if (!file) throw badInput(`blobFieldName names a part "${name.slice(0, 40)}" the request does not carry`);
      delete object.blobFieldName;
      object[uploadField] = file;
    }
    for (const item of Object.values(object)) visit(item, depth + 1);
  };
  visit(variables, 0);
  const operation: Record<string, unknown> = { query: parts.fields.get('query'), variables };
  const operationName = parts.fields.get('operationName');
  if (operationName) operation.operationName = operationName;
  return operation;
}
