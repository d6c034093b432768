// The authentication stage's public face: password hashing (tokens and login follow).

export { PASSWORD_HASH_OPTIONS, hashPassword, verifyPassword } from './password.js';
