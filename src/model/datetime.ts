// DateTime literals: the ISO 8601 forms the schema accepts and their normal form, UTC with
// milliseconds (`2016-12-08T12:33:56.000Z`).

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/**
 * Normalises an ISO 8601 date (`2016-12-08`) or date-time (`2016-12-08T12:33`,
 * `2016-12-08T12:33:56.5+01:00`) to `YYYY-MM-DDTHH:mm:ss.sssZ`; a missing offset means UTC,
 * digits past milliseconds are dropped. Undefined when the text is not a valid date.
 */
export function normalizeDateTime(text: string): string | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11] ?? 0)];
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const iso = date.toISOString();
  // Offsets can carry a date outside 0001–9999, which has no four-digit form; year 0000 (1 BC)
  // is refused too, as PostgreSQL refuses it.
  return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? iso : undefined;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
