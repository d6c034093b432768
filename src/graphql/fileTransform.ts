// The argument of the built-in File's `url` asking for an image variant:
// `FileTransform { width height fit format }` with its enums `FileFit` and `FileFormat`. What the
// values may be (the size bound) is checked where the URL is made.

import { GraphQLEnumType, GraphQLInputObjectType, GraphQLInt } from 'graphql';
import type { GraphQLFieldConfigArgumentMap } from 'graphql';
import type { TypeRegistry } from './registry.js';

/** `url`'s arguments on the File type `typeName`: `transform: FileTransform`. */
export function fileUrlArgs(reg: TypeRegistry, typeName: string): GraphQLFieldConfigArgumentMap {
  const names = reg.names.fileTransform(typeName);
  const fit = reg.named(names.fit, `fileFit:${typeName}`, () =>
    new GraphQLEnumType({
      name: names.fit,
      description: 'How an image variant of both a width and a height fills that box.',
      values: {
        COVER: { value: 'COVER', description: 'Fills the box, cropping what overflows it (centred); keeps the aspect ratio.' },
        CONTAIN: { value: 'CONTAIN', description: 'Fits inside the box, letterboxed to its exact size; keeps the aspect ratio.' },
        FILL: { value: 'FILL', description: 'Stretches to the box, ignoring the aspect ratio.' },
        INSIDE: { value: 'INSIDE', description: 'As large as fits inside the box (one side may be smaller); keeps the aspect ratio.' },
        OUTSIDE: { value: 'OUTSIDE', description: 'As small as covers the box (one side may be larger); keeps the aspect ratio.' },
      },
    }),
  );
  const format = reg.named(names.format, `fileFormat:${typeName}`, () =>
    new GraphQLEnumType({
      name: names.format,
      description: 'The format of an image variant.',
      values: { JPEG: { value: 'JPEG' }, PNG: { value: 'PNG' }, WEBP: { value: 'WEBP' }, AVIF: { value: 'AVIF' } },
    }),
  );
  const input = reg.named(names.input, `fileTransform:${typeName}`, () =>
    new GraphQLInputObjectType({
      name: names.input,
      description: 'An image variant of the file: resized and/or converted on its first download, then kept. Give a width, a height or a format.',
      fields: {
        width: { type: GraphQLInt, description: 'The width in pixels; alone, the height follows the aspect ratio.' },
        height: { type: GraphQLInt, description: 'The height in pixels; alone, the width follows the aspect ratio.' },
        fit: { type: fit, defaultValue: 'COVER', description: 'How the image fills a box of both width and height.' },
        format: { type: format, description: "The variant's format; absent: the file's own (JPEG, PNG, WebP, AVIF or GIF), else PNG." },
      },
    }),
  );
  return { transform: { type: input, description: 'An image variant instead of the file itself.' } };
}
