// The fuzzer's leak check: text only an unmasked internal error shows is found, and the
// client's own text echoed back (graphql-js prints an input object's keys unquoted) is not.

import { describe, expect, it } from 'vitest';
import { leakIn } from './fuzz/checks.js';

describe('the fuzzer’s leak check', () => {
  const echoed = 'Variable "$v0" got invalid value { 6c$9: "__p", x: null }; Field "a" of required type "ID!" was not provided.';

  it('takes a placeholder-like key the client sent for the client’s own text', () => {
    expect(leakIn(echoed, '{"query":"…","variables":{"v0":{"6c$9":"__p","x":null}}}')).toBeUndefined();
  });

  it('still finds the same text when the client did not send it, and a leak beside an echo', () => {
    expect(leakIn(echoed)?.source).toContain('json_build_object');
    expect(leakIn(echoed, '{"v0":{"other":1}}')).toBeDefined();
    expect(leakIn(`${echoed} near json_build_object($1)`, '{"6c$9":"__p"}')?.source).toContain('json_build_object');
    expect(leakIn('column "x" of relation app_abcdefghijkl does not exist', '{}')).toBeDefined();
  });
});
