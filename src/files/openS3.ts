// The S3 driver, loaded only when a bucket is configured: the AWS SDK is large, and a server
// keeping files on disk (or a CLI command) starts without reading it.

import type { S3Options } from './s3.js';
import type { BlobStorage } from './storage.js';

export async function openS3Storage(options: S3Options): Promise<BlobStorage> {
  const { S3Storage } = await import('./s3.js');
  return new S3Storage(options);
}
