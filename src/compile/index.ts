// The compile stage's public face: an app version's compiler context and the executor that
// turns a validated operation into SQL statements and transactions.

export { AppContext } from './context.js';
export type { AppVersion, FileUrlKeys } from './context.js';
export { executeOperation, planQuery } from './execute.js';
export { cachedPlans } from './statementCache.js';
export { fileType, findFileRow } from './fileRow.js';
export type { FileRow } from './fileRow.js';
export type { ExecuteArgs, ExecuteResult, PlannedStatement } from './execute.js';
export type { EventPorts, MutationPorts } from './mutations/writer.js';
export type { BeforeHooks, HookCaller } from './mutations/hooks.js';
export type { ResolverCalls } from './resolvers/ports.js';
export type { FunctionPorts, OutboxCaller } from './mutations/outbox.js';
export { decodeAnyId, decodeId, encodeId } from './ids.js';
export { EVENTS_CHANNEL, MAX_NOTICE_BYTES } from './mutations/events.js';
export type { EventNotice, RowEvent, RowEventKind } from './mutations/events.js';
export { eventError, eventPayloads, eventResult, planSubscription } from './subscription.js';
export type { EventPayload, EventResult, SubscribeArgs, SubscriptionPlan } from './subscription.js';
