// Plans compiled for one document and kept for the requests that send it again. A plan's text
// may depend on some of the request's variables or its app's settings (params.ts: a ShapeRef,
// e.g. whether a `where` is given); it is kept per shape of those, and what each request brings
// besides is bound into its placeholders. Queries keep a plan per operation, one-statement writes one per
// root field and input shape (mutations/oneStatement.ts).

import { shapeKey } from './params.js';
import type { ShapeRef, ShapeSource } from './params.js';

/** Called with +1 for each plan kept and −n for each n plans let go: the app's plan count. */
export type PlanCounter = (delta: number) => void;

export class ShapedPlans<P> {
  /** What the plans' texts depend on, in the order their shapes are keyed. */
  #shapes: readonly ShapeRef[] = [];
  readonly #plans = new Map<string, P>();

  constructor(
    /** The most plans kept: beyond it they are all let go and compiled again as needed. */
    readonly limit: number,
    readonly counted: PlanCounter,
  ) {}

  get size(): number {
    return this.#plans.size;
  }

  /** The plan kept for `prefix` (what the caller keys plans by besides the request) and this request. */
  get(request: ShapeSource, prefix = ''): P | undefined {
    return this.#plans.get(prefix + shapeKey(this.#shapes, request));
  }

  /**
   * Keeps `plan`, compiled for this request with a text that depends on `shapes`. A dependency
   * not known before changes every key: the plans kept so far are let go, not misused.
   */
  set(request: ShapeSource, shapes: readonly ShapeRef[], plan: P, prefix = ''): void {
    const known = this.#shapes;
    const added = shapes.filter((s) => !known.some((k) => k.name === s.name && k.kind === s.kind));
    if (added.length > 0) {
      this.#shapes = [...known, ...added];
      this.clear();
    }
    if (this.#plans.size >= this.limit) this.clear();
    const key = prefix + shapeKey(this.#shapes, request);
    if (!this.#plans.has(key)) this.counted(1);
    this.#plans.set(key, plan);
  }

  /** Lets every plan go. */
  clear(): void {
    this.counted(-this.#plans.size);
    this.#plans.clear();
  }
}
