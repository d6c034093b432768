// What one mutation runs with: the store, the ports bound to its app and caller, and who asks.

import type { Store } from '../../store/index.js';
import type { MutationPorts } from './writer.js';

export interface MutationContext {
  store: Store;
  ports: MutationPorts;
  /** Whether the caller holds an admin token. */
  admin: boolean;
  /** The logged-in user's row uuid, if any. */
  userId?: string | undefined;
}
