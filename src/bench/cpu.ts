// Where the CPU went during a measured window, from Linux's /proc: the server thread, the
// load-generating main thread, the whole Node process, the PostgreSQL backends serving the
// benchmark's database, and the whole machine. Where /proc cannot be read, figures are NaN.

import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** CPU seconds of each part over the window. */
export interface CpuSpent {
  seconds: number;
  machine: number;
  node: number;
  /** The main thread: load generator and direct-SQL client. */
  main: number;
  /** The server's worker thread (NaN when there is none). */
  server: number;
  /** The PostgreSQL backends connected to the benchmark's database. */
  postgres: number;
}

/** Kernel clock ticks per second (USER_HZ), 100 on every mainstream Linux build. */
const TICKS_PER_SECOND = 100;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The calling thread's /proc directory, e.g. `/proc/123/task/125`. */
export function ownThreadPath(): string | undefined {
  try {
    return `/proc/${readlinkSync('/proc/thread-self')}`;
  } catch {
    return undefined;
  }
}

/** user + system ticks of a process or thread, from its `stat` file. */
function statTicks(dir: string): number {
  const stat = read(`${dir}/stat`);
  if (stat === undefined) return Number.NaN;
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

/** Busy ticks summed over all cores: everything in /proc/stat's `cpu` line but idle and iowait. */
function machineTicks(): number {
  const fields = read('/proc/stat')?.split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number);
  if (!fields || fields.length < 8) return Number.NaN;
  const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return user + nice + system + irq + softirq + steal;
}

/** Ticks of each process whose command line mentions `marker` (PostgreSQL puts the database name in its backends' titles). */
function processTicks(marker: string): Map<string, number> {
  const ticks = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return ticks;
  }
  for (const pid of pids) {
    if (read(`/proc/${pid}/cmdline`)?.includes(marker)) ticks.set(pid, statTicks(`/proc/${pid}`));
  }
  return ticks;
}

function sumSince(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, t] of after) total += t - (before.get(pid) ?? 0);
  return total;
}

export interface CpuSources {
  database: string;
  serverThread?: string | undefined;
}

/** Starts a window; the returned function ends it and reports what each part spent. */
export function cpuWindow(sources: CpuSources): () => CpuSpent {
  const marker = ` ${sources.database} `;
  const mainThread = ownThreadPath() ?? '';
  const serverThread = sources.serverThread ?? '';
  const wall0 = performance.now();
  const before = {
    machine: machineTicks(),
    node: process.cpuUsage(),
    main: statTicks(mainThread),
    server: statTicks(serverThread),
    postgres: processTicks(marker),
  };
  return () => {
    const node = process.cpuUsage(before.node);
    return {
      seconds: (performance.now() - wall0) / 1000,
      machine: (machineTicks() - before.machine) / TICKS_PER_SECOND,
      node: (node.user + node.system) / 1e6,
      main: (statTicks(mainThread) - before.main) / TICKS_PER_SECOND,
      server: (statTicks(serverThread) - before.server) / TICKS_PER_SECOND,
      postgres: sumSince(before.postgres, processTicks(marker)) / TICKS_PER_SECOND,
    };
  };
}
