// Image variants of stored files (`url(transform: { width, height, fit, format })`): the
// variant's name (what a URL signs, checked both ways), where it is kept beside the original, and
// making it once with sharp from the original's bytes; later requests read the stored variant.

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { TesseraError, badInput, limitExceeded, notFound } from '../errors/index.js';
import type { BlobStorage } from './storage.js';

/** The largest width or height a variant may ask for, in pixels. */
export const MAX_VARIANT_DIMENSION = 4096;
/** The largest original a variant is made of, in pixels (width × height): 50 megapixels. */
export const MAX_VARIANT_INPUT_PIXELS = 50_000_000;
/**
 * How many variants this process makes at once; more wait their turn. Each takes a core's
 * worth of libvips and the original's decoded pixels, so a burst of first requests (many
 * signed variant URLs fetched together) queues instead of taking every core and the memory.
 */
export const MAX_VARIANTS_AT_ONCE = 2;

/**
 * Distinct variants kept of one file. Whoever may read a File can ask its `url` for any
 * transform, and each distinct one is made and stored: past this many, a new one is refused
 * (LIMIT_EXCEEDED) and those made are still served.
 */
export const MAX_VARIANTS_PER_FILE = 20;
/** The most bytes one variant may take in storage. */
export const MAX_VARIANT_BYTES = 256 * 1024 * 1024;

const FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
const FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type VariantFit = (typeof FITS)[number];
/** What a variant can be asked to be. */
export type VariantFormat = (typeof FORMATS)[number];
/** What a variant is stored and served as: an asked-for format, or a kept GIF. */
export type OutputFormat = VariantFormat | 'gif';

export interface ImageVariant {
  width?: number | undefined;
  height?: number | undefined;
  /** How the image fills a box of both width and height (sharp's `fit`); `cover` when not given. */
  fit: VariantFit;
  /** Absent: the original's format (outputFormat). */
  format?: VariantFormat | undefined;
}

/** The formats of originals a variant is made of (sharp's names; AVIF reads as `heif`). */
const READABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'tiff']);

/** The media type of each kept format, and the formats a File's contentType keeps. */
const MEDIA_TYPES: Readonly<Record<OutputFormat, string>> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif', gif: 'image/gif' };
const KEPT: Readonly<Record<string, OutputFormat>> = {
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/pjpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
};
const EXTENSIONS: Readonly<Record<OutputFormat, string>> = { jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', gif: 'gif' };

/**
 * The name of the variant a `url(transform:)` argument asks for (`w300-h200-cover-webp`,
 * `w64-cover`, `webp`): what its URL carries and signs. The argument holds the GraphQL enum
 * names (`COVER`, `WEBP`); a bad one, or one asking for nothing, is BAD_USER_INPUT.
 */
export function variantName(transform: unknown): string {
  const given = (transform ?? {}) as Record<string, unknown>;
  const variant: ImageVariant = {
    width: dimension(given.width, 'width'),
    height: dimension(given.height, 'height'),
    fit: oneOf(given.fit, FITS, 'fit') ?? 'cover',
    format: oneOf(given.format, FORMATS, 'format'),
  };
  if (variant.width === undefined && variant.height === undefined && variant.format === undefined) {
    throw badInput('url(transform:): give a width, a height or a format', { field: 'transform' });
  }
  return nameOf(variant);
}

function dimension(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_VARIANT_DIMENSION) {
    throw badInput(`url(transform:): ${field} must be a whole number of pixels from 1 to ${MAX_VARIANT_DIMENSION} (got ${JSON.stringify(v)})`, { field: 'transform' });
  }
  return v;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], field: string): T | undefined {
  if (v === undefined || v === null) return undefined;
  const name = typeof v === 'string' ? v.toLowerCase() : '';
  const found = allowed.find((a) => a === name);
  if (!found) throw badInput(`url(transform:): ${field} must be one of ${allowed.map((a) => a.toUpperCase()).join(', ')}`, { field: 'transform' });
  return found;
}

/** The size part of a name: `w300-h200-cover`; empty when the variant keeps the size. */
function sizePart(v: ImageVariant): string {
  const parts: string[] = [];
  if (v.width !== undefined) parts.push(`w${v.width}`);
  if (v.height !== undefined) parts.push(`h${v.height}`);
  // A fit matters only with a size; one name per variant, so it is left out otherwise.
  if (parts.length > 0) parts.push(v.fit);
  return parts.join('-');
}

function nameOf(v: ImageVariant): string {
  return [sizePart(v), v.format ?? ''].filter((p) => p !== '').join('-');
}

/** The variant a URL's name stands for; null when it is not a name variantName makes. */
export function parseVariant(name: string): ImageVariant | null {
  if (name.length > 40) return null;
  const variant: ImageVariant = { fit: 'cover' };
  for (const token of name.split('-')) {
    const size = /^([wh])([1-9]\d{0,3})$/.exec(token);
    if (size) variant[size[1] === 'w' ? 'width' : 'height'] = Number(size[2]);
    else if ((FITS as readonly string[]).includes(token)) variant.fit = token as VariantFit;
    else if ((FORMATS as readonly string[]).includes(token)) variant.format = token as VariantFormat;
    else return null;
  }
  const valid = [variant.width, variant.height].every((d) => d === undefined || d <= MAX_VARIANT_DIMENSION);
  // Only the one spelling variantName gives is a name (a URL is signed over exactly that text).
  return valid && nameOf(variant) === name ? variant : null;
}

/** What a variant is made as: the format asked for, else the File's (by its contentType), else PNG. */
export function outputFormat(variant: ImageVariant, contentType: string): OutputFormat {
  return variant.format ?? KEPT[contentType.split(';')[0]?.trim().toLowerCase() ?? ''] ?? 'png';
}

export function mediaType(format: OutputFormat): string {
  return MEDIA_TYPES[format];
}

/** A file name with the extension of `format` (`photo.png` → `photo.webp`). */
export function variantFileName(name: string, format: OutputFormat): string {
  return `${name.replace(/\.[A-Za-z0-9]{1,10}$/, '')}.${EXTENSIONS[format]}`;
}

/**
 * Where a variant of the file stored under `fileKey` is kept: under the file's own variants
 * prefix (so they go with it), named by what it is made as — two URLs asking for the same
 * image (`w64-cover` of a JPEG and `w64-cover-jpeg`) share it.
 */
export function variantKey(fileKey: string, variant: ImageVariant, format: OutputFormat): string {
  return `${variantsPrefix(fileKey)}${sizePart(variant) || 'full'}.${format}`;
}

/** The prefix of every variant of the file stored under `fileKey`. */
export function variantsPrefix(fileKey: string): string {
  return `${fileKey}.variants/`;
}

/**
 * A variant's entity tag: from the original's digest, what the variant is and its stored size
 * (a variant is made once and never rewritten, so this names its bytes).
 */
export function variantEtag(originalSha256: string, key: string, size: number): string {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return `"${createHash('sha256').update(`${originalSha256}/${name}/${size}`).digest('hex')}"`;
}

const notAnImage = () =>
  new TesseraError('BAD_USER_INPUT', 'This file is not an image a variant can be made of (JPEG, PNG, WebP, AVIF, GIF or TIFF)', {}, 415);
const tooManyVariants = () =>
  limitExceeded(`This file has ${MAX_VARIANTS_PER_FILE} variants already, the most kept of one file: use one of the sizes and formats asked for before`);
const tooManyPixels = () =>
  limitExceeded(`This image is larger than variants are made of (${MAX_VARIANT_INPUT_PIXELS / 1_000_000} megapixels)`);

/** Makes variants, one at a time per variant in this process: concurrent first requests wait for the same one. */
export class ImageVariants {
  readonly #storage: BlobStorage;
  readonly #making = new Map<string, Promise<void>>();
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(storage: BlobStorage) {
    this.#storage = storage;
  }

  /** Runs `make` when one of the MAX_VARIANTS_AT_ONCE turns is free. */
  async #inTurn(make: () => Promise<void>): Promise<void> {
    if (this.#running >= MAX_VARIANTS_AT_ONCE) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running += 1;
    try {
      await make();
    } finally {
      // The turn passes straight to the next in line, or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }

  /**
   * Stores the variant `key` of the original under `original` unless it is stored already: its
   * size, and whether it was made now (for this request or one it waited for).
   */
  async ensure(original: string, key: string, variant: ImageVariant, format: OutputFormat): Promise<{ size: number; made: boolean }> {
    const stored = await this.#storage.size(key);
    if (stored !== null) return { size: stored, made: false };
    let making = this.#making.get(key);
    if (!making) {
      // Counted in its turn, so that a burst of new transforms is counted one by one (at most
      // MAX_VARIANTS_AT_ONCE - 1 over the limit).
      const counted = async () => {
        if ((await this.#storage.count(variantsPrefix(original), MAX_VARIANTS_PER_FILE)) >= MAX_VARIANTS_PER_FILE) throw tooManyVariants();
        await this.#make(original, key, variant, format);
      };
      making = this.#inTurn(counted).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    await making;
    const size = await this.#storage.size(key);
    if (size === null) throw notFound('No such file');
    return { size, made: true };
  }

  async #make(original: string, key: string, variant: ImageVariant, format: OutputFormat): Promise<void> {
    // sharp (libvips) is loaded with the first variant: a server that makes none never reads it.
    const { default: sharp } = await import('sharp');
    const source = await this.#storage.get(original);
    if (!source) throw notFound('No such file');
    let sourceError: unknown;
    let imageError: unknown;
    source.on('error', (err) => (sourceError = err));
    const image = sharp({ limitInputPixels: MAX_VARIANT_INPUT_PIXELS, failOn: 'error' });
    image.on('error', (err) => (imageError ??= err));
    source.pipe(image);
    const refused = (err: unknown): unknown => {
      if (sourceError) return sourceError;
      const message = err instanceof Error ? err.message : '';
      return /pixel limit/i.test(message) ? tooManyPixels() : notAnImage();
    };
    let metadata: { format?: string | undefined; width?: number | undefined; height?: number | undefined };
    try {
      metadata = await image.metadata();
    } catch (err) {
      source.destroy();
      throw refused(err);
    }
    if (!READABLE.has(metadata.format ?? '')) throw notAnImage();
    if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_VARIANT_INPUT_PIXELS) throw tooManyPixels();
    image.autoOrient();
    if (variant.width !== undefined || variant.height !== undefined) image.resize({ width: variant.width, height: variant.height, fit: variant.fit });
    image.toFormat(format);
    try {
      await this.#storage.put(key, image as Readable, MAX_VARIANT_BYTES);
    } catch (err) {
      if (imageError) throw refused(imageError);
      if (err instanceof TesseraError && err.code === 'LIMIT_EXCEEDED') throw limitExceeded(`This variant would take more than ${MAX_VARIANT_BYTES} bytes`);
      throw err;
    }
  }
}
