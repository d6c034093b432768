// The functions stage's public face: what a function is, the one call every kind goes
// through (signed, guarded), signature checks, the stored secrets, which mutations a function
// can be attached to, the metrics of calls, and the worker that delivers EVENT functions'
// outbox.

export { DEFAULT_TIMEOUT_MS, FUNCTION_KINDS, FUNCTION_NAME, HEADER_NAME, MAX_ANSWER_BYTES, MAX_HEADERS, MAX_HEADER_VALUE, MAX_OPERATIONS, MAX_TIMEOUT_MS, MAX_URL_LENGTH, MIN_TIMEOUT_MS, RESERVED_HEADERS } from './definition.js';
export type { FunctionDefinition, FunctionHeader, FunctionKind } from './definition.js';
export { EVENT_ID_HEADER, SIGNATURE_HEADER, generateFunctionSecret, signatureHeader, verifySignature } from './signature.js';
export { callForOperation, callFunction, failureReason } from './call.js';
export type { FunctionCalling, OperationCallRefusal, FunctionCallAnswer, FunctionCallBody, FunctionCallFailure, FunctionCallObserver, FunctionCallPolicy, FunctionCallResult, FunctionFailureKind } from './call.js';
export { MAX_LABELLED_FUNCTIONS, functionMetrics } from './metrics.js';
export type { FunctionMetricsOptions } from './metrics.js';
export { FunctionSecrets } from './sealing.js';
export { eventOperations } from './operations.js';
export type { EventOperation } from './operations.js';
export { AppFunctions } from './appFunctions.js';
export { DEFAULT_DELIVERY_SCHEDULE, retryDelayMs } from './schedule.js';
export type { DeliverySchedule } from './schedule.js';
export { DeliveryWorker, FUNCTIONS_CHANNEL, OutboxSignal } from './worker.js';
export type { DeliveryLog, DeliveryWorkerOptions } from './worker.js';
export { functionUrlProblem } from './setup.js';
export type { FunctionsSetup } from './setup.js';
export { MAX_REJECTION_MESSAGE, beforeHooks } from './before.js';
export type { BeforeHooksOptions } from './before.js';
