// The outbound stage's public face: HTTP calls the server makes for an app, under the policy
// that keeps them off private networks unless the operator allows it.

export { isLoopbackHost, isPrivateAddress, literalAddress, urlProblem } from './addresses.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_OUTBOUND_TIMEOUT_MS, OutboundError, outboundFetch } from './fetch.js';
export type { OutboundPolicy, OutboundRequest } from './fetch.js';
