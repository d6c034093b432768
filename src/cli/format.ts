// How the CLI shows management results: migration plans (one line per step, destructive ones
// marked with "!"), schema problems as FILE:line:column, and the app table.

export interface PlanStep {
  kind: string;
  description: string;
  destructive?: boolean;
}

const KIND_WIDTH = 17;

export function planLine(step: PlanStep): string {
  return `${step.destructive ? '!' : ' '} ${step.kind.padEnd(KIND_WIDTH)} ${step.description}`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export interface Problem {
  message: string;
  line?: number;
  column?: number;
}

/** Compiler-style positions, so editors and terminals can jump to them. */
export function problemLine(file: string, problem: Problem): string {
  return `${file}:${problem.line ?? 1}:${problem.column ?? 1}: ${problem.message}`;
}

export function problemsOf(extensions: Readonly<Record<string, unknown>>): Problem[] {
  const problems = extensions.problems;
  if (!Array.isArray(problems)) return [];
  return problems.filter(
    (p): p is Problem => typeof p === 'object' && p !== null && typeof (p as Problem).message === 'string',
  );
}

export function stepsOf(extensions: Readonly<Record<string, unknown>>): PlanStep[] {
  const steps = extensions.steps;
  if (!Array.isArray(steps)) return [];
  return steps
    .filter((s): s is PlanStep => typeof s === 'object' && s !== null && typeof (s as PlanStep).kind === 'string')
    .map((s) => ({ kind: s.kind, description: s.description, destructive: true }));
}

/** Left-aligned columns under a header row. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
