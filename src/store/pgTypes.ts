// The `pg` type parsers of Tessera's pools: pg's own, except where PGlite reads a type
// differently (see typeParsers.ts). Scoped to our pools; pg's global parsers stay untouched.

import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { OID, parseDate, parseInt8 } from './typeParsers.js';

// pg-types 2 exports `arrayParser.create(text, transform).parse()`; @types/pg describes an older shape.
const arrayParser = pg.types.arrayParser as unknown as {
  create(text: string, transform: (entry: string) => unknown): { parse(): unknown[] };
};
const parseInt8Array = (text: string) => arrayParser.create(text, parseInt8).parse();

const OVERRIDES = new Map<number, (text: string) => unknown>([
  [OID.int8, parseInt8],
  [OID.int8Array, parseInt8Array],
  [OID.date, parseDate],
]);

export const pgTypes: CustomTypesConfig = {
  // pg's typings overload getTypeParser per format; ours answers text results and defers the rest.
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    const override = format === 'binary' ? undefined : OVERRIDES.get(oid);
    return override ?? pg.types.getTypeParser(oid, format ?? 'text');
  }) as CustomTypesConfig['getTypeParser'],
};
