import { describe, expect, it } from 'vitest';
import { compile, empty, ident, isSql, join, literal, mapValues, precompiled, sql, value } from '../../src/sql/index.js';

describe('sql fragments', () => {
  it('binds interpolated values as numbered parameters', () => {
    const q = compile(sql`SELECT * FROM ${ident('app_x', 'Post')} WHERE "title" = ${"O'Brien"} AND "rating" > ${3}`);
    expect(q.text).toBe('SELECT * FROM "app_x"."Post" WHERE "title" = $1 AND "rating" > $2');
    expect(q.values).toEqual(["O'Brien", 3]);
  });

  it('splices nested fragments and keeps parameter numbering across them', () => {
    const where = sql`"a" = ${1}`;
    const q = compile(sql`SELECT ${value('x')} WHERE ${where} AND "b" = ${2}`);
    expect(q.text).toBe('SELECT $1 WHERE "a" = $2 AND "b" = $3');
    expect(q.values).toEqual(['x', 1, 2]);
  });

  it('quotes identifiers, doubling embedded quotes', () => {
    expect(compile(sql`${ident('we"ird')}`).text).toBe('"we""ird"');
  });

  it('refuses identifiers that are empty, too long or contain NUL', () => {
    expect(() => ident('')).toThrow(/non-empty/);
    expect(() => ident('a'.repeat(64))).toThrow(/63 bytes/);
    expect(() => ident('a\0b')).toThrow(/NUL/);
  });

  it('joins fragments with a separator', () => {
    const q = compile(join([sql`${1}`, sql`${2}`, ident('c')]));
    expect(q.text).toBe('$1, $2, "c"');
    expect(compile(join([sql`a`, sql`b`], sql` AND `)).text).toBe('a AND b');
    expect(compile(join([])).text).toBe('');
  });

  it('renders DDL literals safely', () => {
    expect(compile(literal("it's")).text).toBe("'it''s'");
    expect(compile(literal(1.5)).text).toBe('1.5');
    expect(compile(literal(true)).text).toBe('TRUE');
    expect(compile(literal(null)).text).toBe('NULL');
    expect(() => literal(Number.NaN)).toThrow(/finite/);
    expect(() => literal('a\0')).toThrow(/NUL/);
    expect(() => literal({} as unknown as string)).toThrow();
  });

  it('accepts only fragments where SQL is expected', () => {
    expect(() => compile('SELECT 1' as unknown as ReturnType<typeof sql>)).toThrow(/raw strings/);
    expect(() => join(['x' as unknown as ReturnType<typeof sql>])).toThrow(/fragments only/);
    expect(() => (sql as unknown as (s: string) => unknown)('SELECT 1')).toThrow(/tagged template/);
    expect(isSql(empty)).toBe(true);
    expect(isSql({ parts: [] })).toBe(false);
  });

  it('renders a statement once and rebinds its values (precompiled, mapValues)', () => {
    const statement = compile(sql`SELECT ${ident('t', 'x')} FROM t WHERE a = ${1} AND b = ${'two'}`);
    const again = precompiled(statement.text, statement.values);
    expect(compile(again)).toEqual(statement);
    const rebound = compile(mapValues(again, (v) => (typeof v === 'number' ? v + 1 : v)));
    expect(rebound).toEqual({ text: statement.text, values: [2, 'two'] });
    expect(() => compile(sql`SELECT (${again})`)).toThrow(/precompiled/);
  });
});
