// What one mutation runs with: the store, the ports bound to its app and caller, who asks, and
// where the document's compiled writes are kept.

import type { Store } from '../../store/index.js';
import type { ShapedPlans } from '../plans.js';
import type { WritePlan } from './oneStatement.js';
import type { MutationPorts } from './writer.js';

export interface MutationContext {
  store: Store;
  ports: MutationPorts;
  /** Whether the caller holds an admin token. */
  admin: boolean;
  /** The logged-in user's row uuid, if any. */
  userId?: string | undefined;
  /** The document's one-statement write plans, kept for the requests that send it again. */
  writePlans?: ShapedPlans<WritePlan> | undefined;
}
