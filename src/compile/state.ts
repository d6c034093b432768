// The state one compilation carries: the app, the request binder, the document's fragments
// and a counter that gives every table reference of the statement its own alias.

import type { FragmentDefinitionNode } from 'graphql';
import { ident } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { AppContext } from './context.js';
import type { Binder } from './params.js';

export class CompileState {
  #aliases = 0;
  constructor(
    readonly app: AppContext,
    readonly binder: Binder,
    readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  ) {}

  /** A fresh table alias (`t1`, `t2`, …). */
  alias(prefix = 't'): SqlFragment {
    this.#aliases += 1;
    return ident(`${prefix}${this.#aliases}`);
  }
}
