// The secrets stage's public face: sealing secrets the server must read back (AES-256-GCM
// under the server's secret key) before they are stored.

export { MIN_SECRET_KEY_LENGTH, SecretBox, UnsealError, generateSecretKey } from './secretBox.js';
