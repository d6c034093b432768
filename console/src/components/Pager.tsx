// Cursor pagination as the tables show it: the `after` cursor of every page seen so far (going
// back pops one), reset to the first page when what is listed changes.

import { useEffect, useState } from 'react';

export interface CursorPages {
  /** The cursor to ask the current page `after`. */
  after: string | undefined;
  /** 1 for the first page. */
  number: number;
  next: (endCursor: string) => void;
  previous: () => void;
}

/** Pages of a list; a new `listKey` (another filter, order or search) starts again from page 1. */
export function useCursorPages(listKey: string): CursorPages {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setCursors([undefined]), [listKey]);
  return {
    after: cursors[cursors.length - 1],
    number: cursors.length,
    next: (endCursor) => setCursors((c) => [...c, endCursor]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}

export function Pager({ pages, hasNextPage, endCursor, loading }: { pages: CursorPages; hasNextPage: boolean; endCursor: string | null | undefined; loading: boolean }) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="button small" disabled={pages.number <= 1 || loading} onClick={pages.previous}>
        Previous page
      </button>
      <span>Page {pages.number}</span>
      <button type="button" className="button small" disabled={!hasNextPage || !endCursor || loading} onClick={() => endCursor && pages.next(endCursor)}>
        Next page
      </button>
    </nav>
  );
}
