// How result columns become JavaScript values, shared by both drivers so the same SQL yields the
// same values: int8 as a number (a string past 2^53), dates at UTC midnight, the rest as pg does.

/** PostgreSQL type oids whose parsing the drivers align. */
export const OID = { int8: 20, int8Array: 1016, date: 1082 } as const;

/**
 * `count(*)`, `sum(int)` and other int8 results: a number when it is exact, else the decimal
 * string (a JavaScript number would silently round it).
 */
export function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** A `date` as the Date of its UTC midnight (PGlite's reading; pg would use local time). */
export function parseDate(text: string): Date | number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  return new Date(`${text}T00:00:00Z`);
}
