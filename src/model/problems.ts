// Collects the problems found in an app schema, each positioned at the token it is about, so
// that one push reports every problem at once, sorted by line and column.

import type { ASTNode } from 'graphql';
import type { SchemaProblem } from '../errors/index.js';

/** Records one problem at `node` (the start of its first token; 1:1 when there is none). */
export type Report = (message: string, node: ASTNode | undefined) => void;

export interface Problems {
  report: Report;
  /** Every problem reported so far, by line, then column, then order of discovery. */
  sorted(): SchemaProblem[];
}

export function createProblems(): Problems {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  const report: Report = (message, node) => {
    const token = node?.loc?.startToken;
    const problem = { message, line: token?.line ?? 1, column: token?.column ?? 1 };
    const key = `${problem.line}:${problem.column}:${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push(problem);
  };
  return { report, sorted: () => [...problems].sort((a, b) => a.line - b.line || a.column - b.column) };
}
