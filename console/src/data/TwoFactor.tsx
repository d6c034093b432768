// Whether a user has two-factor login on, as the users pages show it (from the management API's
// app { twoFactor }): "on" or "off", or a dash while it is not known; a user's page adds since
// when and how many recovery codes are left.

import type { UserTwoFactor } from '../api/accounts';
import { ErrorBox } from '../components/ErrorBox';

export function TwoFactor({ state }: { state: UserTwoFactor | undefined }) {
  if (!state) return <span className="null">—</span>;
  return state.enabled ? <span className="badge verified">on</span> : <span className="badge unverified">off</span>;
}

/** The user page's line: on since when, with the recovery codes left, or off. */
export function TwoFactorState({ state, loading, error }: { state: UserTwoFactor | undefined; loading: boolean; error: unknown }) {
  if (error) return <ErrorBox error={error} title="Could not load two-factor login" />;
  if (!state) return <span className="null">{loading ? 'loading…' : '—'}</span>;
  if (!state.enabled) return <span className="badge unverified">off</span>;
  const left = `${state.recoveryCodesLeft} recovery code${state.recoveryCodesLeft === 1 ? '' : 's'} left`;
  return (
    <>
      <span className="badge verified">on</span> since {state.enabledAt ? new Date(state.enabledAt).toLocaleString() : '—'}, {left}
    </>
  );
}
