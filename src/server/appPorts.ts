// What an app's operations need from the rest of the server, whatever transport brings them:
// the accounts stage's ports bound to the app and the caller's address, and whether anyone
// hears the app's events; and how an unknown app is named.

import type { FastifyBaseLogger } from 'fastify';
import { accountPorts, userApiId } from '../accounts/index.js';
import type { AccountPorts, LoginThrottle, Mailer, UserTokenCache } from '../accounts/index.js';
import type { MailTester } from '../admin/index.js';
import { TesseraError, badInput, notFound } from '../errors/index.js';
import type { BeforeHooks, EventPorts, FunctionPorts, MutationPorts, ResolverCalls } from '../compile/index.js';
import { beforeHooks } from '../functions/index.js';
import type { FunctionCalling } from '../functions/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import type { SubscriberDirectory } from '../realtime/index.js';
import { isAppId } from '../store/index.js';
import { accountApp } from './appRegistry.js';
import type { AppRegistry, LiveApp } from './appRegistry.js';
import { resolverCalls } from './resolverCalls.js';

/** The server-wide parts the accounts stage works with. */
export interface AccountRuntime {
  throttle: LoginThrottle;
  mailer: Mailer;
  /** The OpenID relying party (absent in servers that sign no one in with OpenID Connect). */
  oidc?: OidcRelyingParty | undefined;
  /** A committed mutation queued file bytes for removal (the removal worker may look now). */
  blobsRemoved?: (() => void) | undefined;
  /** This instance's cache of user tokens (changes to users clear it). */
  tokens?: UserTokenCache | undefined;
}

/** The server-wide parts an app's operations work with: the accounts stage's, and calling functions. */
export interface OperationRuntime extends AccountRuntime {
  /** Calls the apps' functions (absent in servers without the functions runtime: BEFORE hooks and custom fields then fail). */
  functions?: FunctionCalling | undefined;
}

/** The ports of operations of `app`, for a caller at `address`. */
export function mutationPorts(app: LiveApp, services: OperationRuntime, address: string, log?: FastifyBaseLogger, directory?: SubscriberDirectory): MutationPorts {
  return new OperationPorts(app, services, address, log, directory);
}

/**
 * Made for every operation, and most (every query) use none of it: each port is made when
 * first asked for, on an object of one shape.
 */
class OperationPorts implements MutationPorts {
  readonly #app: LiveApp;
  readonly #services: OperationRuntime;
  readonly #address: string;
  readonly #log: FastifyBaseLogger | undefined;
  readonly #directory: SubscriberDirectory | undefined;
  #accounts: AccountPorts | undefined;
  #events: EventPorts | undefined;
  #hooks: BeforeHooks | null | undefined;
  #resolvers: ResolverCalls | null | undefined;

  constructor(app: LiveApp, services: OperationRuntime, address: string, log: FastifyBaseLogger | undefined, directory: SubscriberDirectory | undefined) {
    this.#app = app;
    this.#services = services;
    this.#address = address;
    this.#log = log;
    this.#directory = directory;
  }

  get accounts(): AccountPorts {
    this.#accounts ??= accountPorts(accountApp(this.#app), this.#services.throttle, this.#address, {
      mailer: this.#services.mailer,
      mailLost: (err) => this.#log?.error({ err, appId: this.#app.id }, 'an account mail was not sent'),
      oidc: this.#services.oidc,
      // A refused sign-in's reason, for the operator; the client gets one message whatever it was.
      log: (detail, message) => this.#log?.info(detail, message),
      tokens: this.#services.tokens,
    });
    return this.#accounts;
  }

  get blobsRemoved(): (() => void) | undefined {
    return this.#services.blobsRemoved;
  }

  get events(): EventPorts {
    const directory = this.#directory;
    this.#events ??= {
      wanted: directory && (() => directory.known(this.#app.id) ?? directory.has(this.#app.id)),
      lost: (err) => this.#log?.error({ err, appId: this.#app.id }, 'row events of a committed mutation were not published'),
    };
    return this.#events;
  }

  get functions(): FunctionPorts | undefined {
    return this.#app.functions.hasEvents ? this.#app.functions : undefined;
  }

  get hooks(): BeforeHooks | undefined {
    if (this.#hooks === undefined) {
      const app = this.#app;
      const log = this.#log;
      const functions = this.#services.functions;
      // Without the runtime, an app's BEFORE functions cannot be called: every mutation they are
      // attached to fails rather than skip them.
      this.#hooks =
        !app.functions.hasBefore ? null
        : functions ? beforeHooks({ appId: app.id, functions: app.functions, calling: functions, userApiId: (userId) => userApiId(accountApp(app), userId), log })
        : unavailableHooks(app);
    }
    return this.#hooks ?? undefined;
  }

  get resolvers(): ResolverCalls | undefined {
    const functions = this.#services.functions;
    this.#resolvers ??= functions ? resolverCalls(this.#app, functions, this.#log) : null;
    return this.#resolvers ?? undefined;
  }
}

/** BEFORE functions this server cannot call: attached mutations fail with FUNCTION_FAILED. */
function unavailableHooks(app: LiveApp): BeforeHooks {
  return {
    attached: (operation) => app.functions.attached('BEFORE', operation).length > 0,
    run: async (operation) => {
      throw new TesseraError('FUNCTION_FAILED', `The BEFORE functions of ${operation} cannot be called by this server (it has no functions runtime)`, { operation });
    },
  };
}

/** The management API's test mail, through the app's mail settings (or the server's). */
export function mailTester(registry: AppRegistry, mailer: Mailer): MailTester {
  return {
    async sendTest(appId, to) {
      if (to.length > 254 || !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(to)) throw badInput(`"${to.slice(0, 60)}" is not an email address`, { field: 'to' });
      const live = await registry.get(appId);
      if (!live) throw notFound(unknownApp(appId));
      const settings = live.context.app.settings;
      if (!mailer.configured(settings)) throw new TesseraError('UNAVAILABLE', 'The app cannot send mail: set its smtpUrl and mailFrom settings (or the server’s TESSERA_SMTP_URL and TESSERA_MAIL_FROM)');
      try {
        await mailer.sendTest(settings, to, live.name);
      } catch (err) {
        // The operator sees the mail server's answer (never the URL, which may hold a password).
        const answer = err instanceof Error ? err.message.replace(/smtps?:\/\/\S*/g, '<smtp url>') : String(err);
        throw new TesseraError('UNAVAILABLE', `The mail could not be sent: ${answer}`);
      }
    },
  };
}

/** The message for an unknown app: the id is echoed only when it could be one. */
export function unknownApp(appId: string): string {
  return isAppId(appId) ? `No app with id "${appId}"` : 'No app with this id';
}
