// The accounts stage's public face: password hashing, user tokens, login throttling, who a
// token stands for, two-factor login, and the ports mutations call for all of it.

export { PASSWORD_HASH_OPTIONS, decoyHash, hasPassword, hashPassword, needsRehash, passwordFingerprint, unusablePassword, verifyPassword } from './password.js';
export { TOKEN_ALGORITHM, TOKEN_ISSUER, publicKeySet, signUserToken, verifyUserToken } from './tokens.js';
export type { TokenClaims } from './tokens.js';
export { LOGIN_LIMITS, LoginThrottle } from './throttle.js';
export type { LoginLimit, LoginLimits } from './throttle.js';
export { TOKEN_REFUSED, tokenUserNow, userApiId } from './callers.js';
export { TOKEN_CACHE_ENTRIES, USER_STATE_TTL_MS, UserTokenCache } from './tokenCache.js';
export { accountPorts } from './ports.js';
export type { AccountApp, AccountPorts, AccountServices } from './ports.js';
export type { AccountLog, OidcIdentity } from './identities.js';
export { REFRESH_REFUSED, REFRESH_TOKEN_PREFIX, pruneSessionsHourly } from './sessions.js';
export type { Rotation } from './sessions.js';
export { Mailer, fillTemplate } from './mail.js';
export type { Mail, MailDefaults, MailKind } from './mail.js';
export { MAILED_TOKEN_PREFIX, MAILED_TOKEN_REFUSED } from './mailFlows.js';
export { MFA_CODE_MISSING, MFA_CODE_REFUSED, RECOVERY_CODE_COUNT, TOTP_ALREADY_ON, totpCodeStep } from './totp.js';
export type { Enrolment, SecondFactor } from './totp.js';
