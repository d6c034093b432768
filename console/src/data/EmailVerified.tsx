// Whether a user's address is verified, as the users pages show it: a dash when they have no
// address, else "verified" or "not verified" (User.emailVerified, which only the server sets).

export function EmailVerified({ email, verified }: { email: unknown; verified: unknown }) {
  if (email === null || email === undefined || email === '') return <span className="null">—</span>;
  return verified === true ? <span className="badge verified">verified</span> : <span className="badge unverified">not verified</span>;
}
