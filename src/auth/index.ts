// The authentication stage's public face: password hashing and user tokens (login and its
// throttling follow).

export { PASSWORD_HASH_OPTIONS, decoyHash, hashPassword, needsRehash, passwordFingerprint, verifyPassword } from './password.js';
export { TOKEN_ALGORITHM, TOKEN_ISSUER, publicKeySet, signUserToken, verifyUserToken } from './tokens.js';
export type { TokenClaims } from './tokens.js';
