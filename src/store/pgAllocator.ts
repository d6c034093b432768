// What a new PostgreSQL connection runs before its first checkout: one statement that leaves its
// backend's memory allocator keeping the heap its statements free.

import type pg from 'pg';

/**
 * Bytes a new connection's backend allocates and frees once, before its first statement, so
 * that its memory allocator keeps what later statements free instead of handing it back.
 *
 * glibc's `malloc` (the C library of PostgreSQL's usual builds) gives the top of its heap back to
 * the kernel whenever more than its trim threshold, 128 KiB at first, lies free there. A data API
 * statement builds its JSON answer in memory contexts that are freed when it ends, so a fresh
 * backend grows its heap past that threshold and shrinks it again on every page it serves: each
 * time the pages are faulted in anew and their unmapping interrupts the other cores. A first page
 * of 20 posts cost PostgreSQL twice the CPU for that alone, a page of 500 nearly three times
 * (docs/performance.md, "A backend's memory given back after every statement"). glibc raises
 * both thresholds for good when a block it mapped on its own is freed: to the block's size for
 * blocks mapped, to twice that for trimming. One block of this size, allocated and freed, is
 * enough, so the backend then keeps up to 8 MiB of free heap rather than 128 KiB. Other
 * allocators ignore it; so does glibc when the server's environment fixes the thresholds
 * (`MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_`).
 */
const ALLOCATOR_PRIMING_BYTES = 4 * 1024 * 1024;

/**
 * Primes a new connection's allocator (ALLOCATOR_PRIMING_BYTES). `lpad` reserves room for its
 * length in the encoding's widest characters (4 bytes in UTF-8) and writes one byte a character
 * here, so the block is allocated in full but only a quarter of it touched: a text of 4 MiB
 * built instead took 60–80 ms on a loaded machine, faulting in every page, against 10–25 ms.
 */
export function primeAllocator(client: pg.ClientBase): Promise<unknown> {
  return client.query(`SELECT length(lpad('', ${ALLOCATOR_PRIMING_BYTES / 4}, 'x'))`);
}
