// The operation core of the data API, made once per server and shared by every transport:
// who is calling (callers.ts), which document runs (persisted and trusted documents), the
// app's limits, the compiling executor with the app's ports, and errors formatted for the
// client. A transport adapts its messages to `OperationRequest` and the outcome back to its
// wire format; nothing here knows HTTP or WebSocket.

import type { FastifyBaseLogger } from 'fastify';
import type { GraphQLError } from 'graphql';
import type { LoginThrottle, Mailer, UserTokenCache } from '../../accounts/index.js';
import { executeOperation } from '../../compile/index.js';
import { TesseraError } from '../../errors/index.js';
import type { ErrorCode } from '../../errors/index.js';
import { sqlState, withStatementTimeout } from '../../store/index.js';
import type { OidcRelyingParty } from '../../oidc/index.js';
import type { SubscriberDirectory } from '../../realtime/index.js';
import { mutationPorts } from '../appPorts.js';
import type { AppRegistry, LiveApp } from '../appRegistry.js';
import type { FunctionCalling } from '../../functions/index.js';
import { appLimits } from '../limits/index.js';
import type { PersistedQueries } from '../persisted.js';
import { callerNow } from './callers.js';
import type { Caller } from './callers.js';
import { asGraphQLError, codeOf, formatErrors } from './format.js';
import type { OperationNote, OperationRequest, OperationRunner, Operated, RunOptions } from './outcome.js';
import { prepareOperation } from './prepare.js';
import type { DocumentRules } from './prepare.js';

/** SQLSTATEs of a statement that ran into an app moving away: its tables dropped, or a wait for them cut short. */
const MOVED_STATES = new Set(['42P01', '3F000', '57014']);

function mayHaveMoved(error: GraphQLError): boolean {
  const state = sqlState(error.originalError);
  return state !== undefined && MOVED_STATES.has(state);
}

/** The document rules of an app as loaded (its schema, validated documents and limits), made once per load. */
const documentRules = new WeakMap<LiveApp, DocumentRules & { suggestions: boolean }>();

function rulesOf(live: LiveApp): DocumentRules & { suggestions: boolean } {
  let rules = documentRules.get(live);
  if (!rules) {
    const limits = appLimits(live.context.app.settings);
    rules = { schema: live.context.app.schema, documents: live.documents, ...limits };
    documentRules.set(live, rules);
  }
  return rules;
}

export interface OperationServices {
  registry: AppRegistry;
  /** The platform key: an admin credential on every app. */
  platformKey: string;
  throttle: LoginThrottle;
  mailer: Mailer;
  /** Which apps have subscribers (mutations of other apps publish no events). */
  directory: SubscriberDirectory;
  persisted: PersistedQueries;
  /** Redeems OpenID sign-ins (absent: the server has no secret key, and none works). */
  oidc?: OidcRelyingParty | undefined;
  /** Calls the apps' RESOLVER functions (absent: the server has no secret key, and custom fields fail). */
  functions?: FunctionCalling | undefined;
  /** A committed mutation queued file bytes for removal: the worker may look now. */
  blobsRemoved?: (() => void) | undefined;
  /** The user tokens this instance verified, and their users' state; changes to users clear it. */
  tokens?: UserTokenCache | undefined;
}

/** One operation's circumstances: the app, who asks, from where, under which request id. */
export interface OperationCall {
  live: LiveApp;
  caller: Caller;
  /** The client's address, as the login throttle counts it (trusted proxies honoured). */
  address: string;
  requestId: string;
  log: FastifyBaseLogger;
}

export class AppOperations {
  readonly #services: OperationServices;

  constructor(services: OperationServices) {
    this.#services = services;
  }

  /** The caller an Authorization value names; throws UNAUTHENTICATED for a refused credential. */
  async identify(live: LiveApp, authorization: string | string[] | undefined): Promise<Caller> {
    return callerNow(this.#services, live, authorization);
  }

  /** The caller, without a promise when this instance knows the credential already (see callerNow). */
  identifyNow(live: LiveApp, authorization: string | string[] | undefined): Caller | Promise<Caller> {
    return callerNow(this.#services, live, authorization);
  }

  /** The live app with this id, or null. */
  app(appId: string): Promise<LiveApp | null> {
    return this.#services.registry.get(appId);
  }

  /** The live app with this id when this instance holds it loaded (most requests); undefined: ask `app`. */
  loaded(appId: string): LiveApp | undefined {
    return this.#services.registry.loaded(appId);
  }

  /** Runs operations of `call.live` for `call.caller`. */
  runner(call: OperationCall): OperationRunner {
    return { run: (request, options) => this.#run(call, request, options ?? {}) };
  }

  async #run<E>(call: OperationCall, request: OperationRequest, options: RunOptions<E>): Promise<Operated<E>> {
    const { live, caller } = call;
    const services = this.#services;
    const schema = live.context.app.schema;
    const rules = rulesOf(live);
    const format = (errors: readonly GraphQLError[], code?: ErrorCode) =>
      formatErrors(errors, { requestId: call.requestId, suggestions: rules.suggestions, onInternalError: (err) => call.log.error({ err, appId: live.id, requestId: call.requestId }, 'data operation failed') }, code);
    const note: OperationNote = { type: 'unknown', outcome: 'ok' };
    const refused = (errors: readonly GraphQLError[], code: ErrorCode): Operated<E> => {
      const formatted = format(errors, code);
      note.outcome = String(formatted[0]?.extensions?.code ?? code);
      return { outcome: { kind: 'refused', errors: formatted }, note };
    };

    // Trusted documents bind users and admin tokens alike; the operator's key (the console) is free of them.
    const enforced = !(caller.kind === 'admin' && caller.operator);
    const resolved = services.persisted.resolve(live.id, live.trusted, enforced, { query: request.query, persistedHash: request.persistedHash });
    if ('error' in resolved) return refused([asGraphQLError(resolved.error)], resolved.error.code);
    const { operationName, variables } = request;
    const prepared = prepareOperation({ query: resolved.query, operationName, variables }, rules, options.early);
    if ('early' in prepared) return { outcome: { kind: 'early', value: prepared.early }, note };
    if ('errors' in prepared) return refused(prepared.errors, prepared.code);
    const { document, operation } = prepared;
    note.type = operation?.operation ?? 'unknown';
    if (operation?.name) note.name = operation.name.value;

    if (operation?.operation === 'subscription' && options.streams) {
      return { outcome: { kind: 'subscription', start: { schema, document, operationName, variables, caller, format } }, note };
    }
    // A user known not to be an app admin reads through statements without the admin arm; the
    // statement that asks tells this instance's cache what it read (kept only if no change to
    // the app's roles was heard of meanwhile).
    const tokens = services.tokens;
    const userId = caller.kind === 'user' ? caller.userId : undefined;
    const epoch = tokens?.epoch ?? 0;
    const run = await executeOperation({
      app: live.context,
      shared: live.shared,
      store: withStatementTimeout(live.store, live.context.app.settings.statementTimeoutMs),
      ports: mutationPorts(live, services, call.address, call.log, services.directory),
      document,
      query: resolved.query,
      operationName,
      variables,
      admin: caller.kind === 'admin',
      userId,
      appAdmin: tokens !== undefined && userId !== undefined ? tokens.appAdmin(live.id, userId) : undefined,
      appAdminSeen: tokens !== undefined && userId !== undefined ? (isAdmin) => tokens.rememberAppAdmin(live.id, userId, isAdmin, epoch) : undefined,
    });
    // No data at all means the operation never ran: bad variables or an unknown operation name.
    if (run.data === undefined) return refused(run.errors, 'BAD_USER_INPUT');
    // The app's tables gone, or a wait cut short, while the app moves to another cluster: the
    // client is told to send it again (it then reaches the new home); nothing was written.
    if (run.errors.some(mayHaveMoved) && (await services.registry.relocated(live))) {
      const moving = new TesseraError('UNAVAILABLE', 'The app is moving to another cluster; send the operation again in a moment', { retryAfter: 1, cluster: live.cluster });
      return refused([asGraphQLError(moving)], 'UNAVAILABLE');
    }
    const errors = format(run.errors);
    if (errors[0]) note.outcome = codeOf(errors[0]) ?? 'INTERNAL';
    return { outcome: { kind: 'result', schema, document, data: run.data, hasData: run.data !== 'null', errors }, note };
  }
}
