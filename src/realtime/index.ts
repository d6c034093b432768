// Realtime subscriptions: event fan-out between instances and the WebSocket protocols.

export { DeliveryBatch } from './batch.js';
export { REALTIME_APPS_CHANNEL, SubscriberDirectory } from './directory.js';
export { RealtimeHub } from './hub.js';
export type { HubOptions, Subscriber } from './hub.js';
export { EventStream, MAX_PENDING_EVENTS } from './stream.js';
export type { EventSink } from './stream.js';
export { MAX_BUFFERED_BYTES, RealtimeSockets, selectProtocol } from './sockets.js';
export type { RealtimeSocketsOptions } from './sockets.js';
export { LEGACY_CLOSE_REFUSED } from './legacy.js';
export { CLOSE_GOING_AWAY, CLOSE_SERVICE_RESTART, CLOSE_TRY_AGAIN_LATER } from './session.js';
export type { OperationOutcome, OperationPayload, SocketSession, StreamSocket } from './session.js';
