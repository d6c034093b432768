// The `Upload` scalar of the GraphQL multipart request specification. Its values never come
// from JSON: the server streams each file of a multipart request into storage first and puts
// an UploadedBlob where the request's map points; anything else sent as an Upload is refused.

import { GraphQLError, GraphQLScalarType } from 'graphql';

/** A file of the current request, already stored under `key` (its bytes not yet owned by a row). */
export class UploadedBlob {
  constructor(
    /** The app the request is for; the blob is claimable there only. */
    readonly appId: string,
    /** The uuid the File row created from it takes. */
    readonly id: string,
    readonly key: string,
    /** The name and media type the client gave the file part. */
    readonly filename: string,
    readonly mimetype: string,
    readonly size: number,
    readonly sha256: string,
  ) {}

  /** What a function is told of the file (a BEFORE hook's input): never where it is stored. */
  toJSON(): { filename: string; contentType: string; size: number; sha256: string } {
    return { filename: this.filename, contentType: this.mimetype, size: this.size, sha256: this.sha256 };
  }
}

export function isUploadedBlob(value: unknown): value is UploadedBlob {
  return value instanceof UploadedBlob;
}

const NOT_A_FILE =
  'Upload values are files sent in a multipart request (the GraphQL multipart request specification: operations, map and the files); this value is not one';

export const UploadScalar = new GraphQLScalarType<UploadedBlob, never>({
  name: 'Upload',
  description: 'A file sent in the same multipart request (the GraphQL multipart request specification), as Apollo Upload Client, urql and graphql-request send it.',
  serialize() {
    throw new GraphQLError('Upload is an input type only');
  },
  parseValue(value) {
    if (!isUploadedBlob(value)) throw new GraphQLError(NOT_A_FILE);
    return value;
  },
  parseLiteral(ast) {
    throw new GraphQLError(NOT_A_FILE, { nodes: ast });
  },
});
