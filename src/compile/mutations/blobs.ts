// Rows that describe stored bytes (the built-in File): creating one takes the request's upload
// (its entry in the catalog's removal queue goes in the same transaction, so committed rows
// keep their bytes and everything else is removed), and deleting one queues its bytes for
// removal in the deleting transaction.

import { badInput } from '../../errors/index.js';
import { isUploadedBlob } from '../../graphql/index.js';
import type { UploadedBlob } from '../../graphql/index.js';
import { builtinTraits } from '../../model/index.js';
import type { BuiltinTypeTraits, ModelType } from '../../model/index.js';
import { claimUpload, fileKey, queueFileRemoval } from '../../store/index.js';
import type { Writer } from './writer.js';

type Input = Record<string, unknown>;
type Blob = NonNullable<BuiltinTypeTraits['blob']>;

/** What creating a row of a file type decides from its upload: its id and the values of its managed fields. */
export interface BlobRow {
  id: string;
  /** Input values as written, the upload filling in what the client left out. */
  input: Input;
  /** The uploader, when the owner field is not set otherwise. */
  ownerId: string | null;
}

export function blobTraits(type: ModelType): Blob | undefined {
  return builtinTraits(type)?.blob;
}

/**
 * Claims the upload given in a file type's create input for the row about to be inserted;
 * BAD_USER_INPUT when it is missing, of another app, or already taken.
 */
export async function claimBlob(w: Writer, type: ModelType, blob: Blob, input: Input): Promise<BlobRow> {
  const upload: unknown = input[blob.upload];
  const what = `${type.name}.${blob.upload}`;
  if (!isUploadedBlob(upload)) throw badInput(`${what}: give the file as an Upload in a multipart request`, { field: blob.upload });
  const appId = w.app.app.id;
  const claimed = upload.appId === appId && upload.key === fileKey(appId, upload.id) && (await claimUpload(w.tx, appId, upload.key));
  if (!claimed) throw badInput(`${what}: this upload is already held by another ${type.name}`, { field: blob.upload });
  return { id: upload.id, input: filled(blob, input, upload), ownerId: w.s.access === 'admin' ? null : (w.s.binder.request.userId ?? null) };
}

function filled(blob: Blob, input: Input, upload: UploadedBlob): Input {
  const { [blob.upload]: _upload, ...rest } = input;
  return {
    ...rest,
    [blob.name]: input[blob.name] ?? (upload.filename || 'file'),
    [blob.contentType]: input[blob.contentType] ?? (upload.mimetype || 'application/octet-stream'),
    [blob.size]: upload.size,
    [blob.sha256]: upload.sha256,
  };
}

/** After a file type's row `id` is deleted: its bytes go once the transaction commits. */
export async function forgetBlob(w: Writer, type: ModelType, id: string): Promise<void> {
  if (!blobTraits(type)) return;
  await queueFileRemoval(w.tx, w.app.app.id, fileKey(w.app.app.id, id));
  w.blobsRemoved = true;
}
