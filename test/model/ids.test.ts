// Global ids: the one spelling `encodeId` writes is an id, and no other string naming the same
// object is (a second spelling would let a client tell two ids of one row apart, or slip past
// a comparison of ids). Checked against the definition: decode, then encode again.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAnyId, decodeId, encodeId, quotedId } from '../../src/model/ids.js';
import { leakIn } from '../hardening/fuzz/checks.js';

/** The definition the decoder must agree with: an id is what encodeId writes for a valid type and uuid. */
function byDefinition(id: string): { type: string; uuid: string } | undefined {
  if (id.length === 0 || id.length > 200 || !/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const [type, uuid] = [text.slice(0, colon), text.slice(colon + 1)];
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid) || !/^[_A-Za-z][_0-9A-Za-z]*$/.test(type)) return undefined;
  return encodeId(type, uuid) === id ? { type, uuid } : undefined;
}

const uuid = fc.uuid().map((u) => u.toLowerCase());
const typeName = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,20}$/);
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('global ids', () => {
  it('decodes every id encodeId writes, and answers its type in decodeId', () => {
    fc.assert(
      fc.property(typeName, uuid, (type, u) => {
        const id = encodeId(type, u);
        expect(decodeAnyId(id)).toEqual({ type, uuid: u });
        expect(decodeId(id, type, 'id')).toBe(u);
        expect(() => decodeId(id, `${type}X`, 'id')).toThrow(/is the id of a/);
      }),
    );
  });

  it('refuses every other spelling of an id: its last digit changed, a digit added or taken away', () => {
    fc.assert(
      fc.property(typeName, uuid, fc.integer({ min: 0, max: 63 }), (type, u, digit) => {
        const id = encodeId(type, u);
        const variants = [id.slice(0, -1) + (BASE64URL[digit] as string), id + (BASE64URL[digit] as string), id.slice(0, -1), `${id}==`];
        for (const variant of variants) {
          const expected = byDefinition(variant);
          expect(decodeAnyId(variant)).toEqual(expected);
          // Only the canonical spelling itself names the object.
          if (variant !== id) expect(decodeAnyId(variant)?.uuid === u && decodeAnyId(variant)?.type === type).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with the definition on arbitrary strings, and on bytes that are not UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        expect(decodeAnyId(s)).toEqual(byDefinition(s));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), typeName, uuid, (bytes, type, u) => {
        const mixed = Buffer.concat([Buffer.from(bytes), Buffer.from(`${type}:${u}`)]).toString('base64url');
        const prefixed = Buffer.concat([Buffer.from(`${type}`), Buffer.from(bytes), Buffer.from(`:${u}`)]).toString('base64url');
        expect(decodeAnyId(mixed)).toEqual(byDefinition(mixed));
        expect(decodeAnyId(prefixed)).toEqual(byDefinition(prefixed));
      }),
      { numRuns: 2000 },
    );
    // A type name with a byte that is not ASCII: not an id, whichever way it is decoded.
    const latin = Buffer.concat([Buffer.from('Post'), Buffer.from([0xe9]), Buffer.from(':00000000-0000-4000-8000-000000000000')]).toString('base64url');
    expect(decodeAnyId(latin)).toBeUndefined();
    expect(decodeAnyId(encodeId('Post', '00000000-0000-4000-8000-000000000000'))).toEqual({ type: 'Post', uuid: '00000000-0000-4000-8000-000000000000' });
  });

  it('quotes a bad id in its message as JSON: nothing in it reads as the message’s own text', () => {
    const hostile = '"%)$4 SELECT 1 FROM t';
    expect(() => decodeId(hostile, 'Post', 'input.id')).toThrow('input.id: "\\"%)$4 SELECT 1 FROM t" is not a valid id');
    let message = '';
    try {
      decodeId(hostile, 'Post', 'input.id');
    } catch (err) {
      message = (err as Error).message;
    }
    // What the fuzzer reads as SQL or a placeholder leaking is inside the client's own quoted text.
    expect(leakIn(message)).toBeUndefined();
    expect(quotedId('x'.repeat(100))).toBe(JSON.stringify(`${'x'.repeat(57)}...`));
    const other = encodeId('Tag', '00000000-0000-4000-8000-000000000000');
    expect(() => decodeId(other, 'Post', 'id')).toThrow(`id: "${other}" is the id of a Tag, not of a Post`);
  });
});
