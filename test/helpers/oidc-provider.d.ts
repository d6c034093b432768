// The part of oidc-provider (8.x, plain JavaScript) the tests use: a real OpenID provider, run
// in the test process.

declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    method: string;
    req: IncomingMessage;
    res: ServerResponse;
    body: unknown;
    status: number;
    redirect(url: string): void;
  }

  interface Interaction {
    uid: string;
    params: Record<string, string | undefined>;
  }

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  /** The provider's own in-memory storage, named explicitly so it does not warn about it. */
  const MemoryAdapter: new (model: string) => unknown;
  export default MemoryAdapter;
}
