// The files stage's public face: where file bytes are kept (the storage interface and its disk
// and S3 drivers), the signed download URLs, image variants, and the worker removing bytes whose row is gone.

export { DiskStorage } from './disk.js';
export { openS3Storage } from './openS3.js';
export type { S3Options } from './s3.js';
export { checkKey, checkPrefix } from './storage.js';
export type { BlobStorage, ByteRange, StoredBlob } from './storage.js';
export { FileUrlSigner, urlExpiry } from './signing.js';
export type { SignatureCheck } from './signing.js';
export { DEFAULT_REMOVAL_INTERVAL_MS, FileRemover } from './remover.js';
export type { FileRemoverOptions } from './remover.js';
export { Meter, tooBig } from './meter.js';
export { ImageVariants, mediaType, outputFormat, parseVariant, variantEtag, variantFileName, variantKey, variantName } from './variants.js';
export type { ImageVariant, OutputFormat } from './variants.js';
