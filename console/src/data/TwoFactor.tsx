// Whether a user has two-factor login on, as the users pages show it (from the management API's
// app { twoFactor }): "on" or "off", or a dash while it is not known.

import type { UserTwoFactor } from '../api/accounts';

export function TwoFactor({ state }: { state: UserTwoFactor | undefined }) {
  if (!state) return <span className="null">—</span>;
  return state.enabled ? <span className="badge verified">on</span> : <span className="badge unverified">off</span>;
}
