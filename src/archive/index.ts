// The app archive format's public face (docs/portability.md): its records, a streaming writer
// that adds the checked trailer, and a streaming reader that checks every line against it.

export * from './records.js';
export { ArchiveWriter } from './writer.js';
export type { ArchiveWriterOptions } from './writer.js';
export { MAX_LINE_BYTES, archiveError, readArchive } from './reader.js';
export type { ArchiveItem, ArchivePosition } from './reader.js';
