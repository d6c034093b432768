import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { TestApp } from './harness.js';
import type { TestServer } from '../server/harness.js';

describe.each(STORE_KINDS)('data API smoke (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, 'type Note @model { text: String! }');
  });
  afterAll(async () => server?.close());

  it('creates and lists', async () => {
    const created = await app.data('mutation { createNote(input: { text: "hi" }) { changedNote { id text } } }');
    expect(created.createNote.changedNote.text).toBe('hi');
    const listed = await app.data('{ viewer { allNotes { edges { node { id text } } } } }');
    expect(listed.viewer.allNotes.edges).toEqual([{ node: created.createNote.changedNote }]);
  });
});
