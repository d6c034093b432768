// The call signature as an endpoint checks it (docs/functions.md): `t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>">`, refused when the time is outside the tolerance, the body or
// secret differs, or the header is malformed; and the retry schedule's bounds.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_SCHEDULE, generateFunctionSecret, retryDelayMs, signatureHeader, verifySignature } from '../../src/functions/index.js';

const secret = generateFunctionSecret();
const body = '{"id":"e1","event":{"operation":"createPost"}}';

describe('function call signatures', () => {
  it('signs "<t>.<body>" with HMAC-SHA256, as the docs show an endpoint computing it', () => {
    const header = signatureHeader(secret, body, 1_700_000_000);
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
    expect(verifySignature(secret, header, body, 300, 1_700_000_000_000)).toBe(true);
  });

  it.each([
    ['another secret', generateFunctionSecret(), body, 1_700_000_000_000],
    ['another body', secret, `${body} `, 1_700_000_000_000],
    ['a time past the tolerance', secret, body, 1_700_000_301_000],
    ['a time before it', secret, body, 1_699_999_699_000],
  ])('refuses %s', (_what, key, text, now) => {
    expect(verifySignature(key, signatureHeader(secret, body, 1_700_000_000), text, 300, now)).toBe(false);
  });

  it.each([
    ['none', undefined],
    ['empty', ''],
    ['without a signature', 't=1700000000'],
    ['without a time', `v1=${'0'.repeat(64)}`],
    ['with a time that is no number', `t=abc,v1=${'0'.repeat(64)}`],
    ['with a signature that is no hex', `t=1700000000,v1=${'g'.repeat(64)}`],
    ['with a part of two =', 't=1,v1=a=b'],
    ['of 5,000 characters', 'x'.repeat(5000)],
  ])('refuses a malformed header: %s', (_what, header) => {
    expect(verifySignature(secret, header, body, 300, 1_700_000_000_000)).toBe(false);
  });

  it('accepts any matching v1 among several (a header carrying two schemes or secrets)', () => {
    const good = signatureHeader(secret, body, 1_700_000_000);
    expect(verifySignature(secret, `t=1700000000,v1=${'0'.repeat(64)},${good.split(',')[1]}`, body, 300, 1_700_000_000_000)).toBe(true);
  });

  it('backs off exponentially with jitter, capped', () => {
    const low = () => 0;
    const high = () => 1;
    expect(retryDelayMs(1, DEFAULT_DELIVERY_SCHEDULE, high)).toBe(1000);
    expect(retryDelayMs(1, DEFAULT_DELIVERY_SCHEDULE, low)).toBe(800);
    expect(retryDelayMs(4, DEFAULT_DELIVERY_SCHEDULE, high)).toBe(8000);
    expect(retryDelayMs(40, DEFAULT_DELIVERY_SCHEDULE, high)).toBe(3_600_000);
    expect(retryDelayMs(500, DEFAULT_DELIVERY_SCHEDULE, low)).toBe(2_880_000);
  });
});
