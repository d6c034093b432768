// What every transport does before an operation runs: the document (from the cache of validated
// documents, or parsed under the token limit), validation with the cheap limit rules first, and
// the per-request checks that depend on variables. No transport is named here.

import { GraphQLError, Lexer, Source, TokenKind, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import type { ErrorCode } from '../../errors/index.js';
import { LruMap } from '../../lru/index.js';
import { limitError } from '../limits/index.js';
import type { LimitedRequest } from '../limits/index.js';

/** A bounded map of validated documents. */
export class DocumentCache {
  readonly #documents: LruMap<string, DocumentNode>;
  #chars = 0;
  constructor(limit = 500) {
    this.#documents = new LruMap(limit, (query) => {
      this.#chars -= query.length;
    });
  }
  /** The length of the cached documents' text, which their parsed form grows with. */
  get chars(): number {
    return this.#chars;
  }
  get(query: string): DocumentNode | undefined {
    return this.#documents.get(query);
  }
  set(query: string, document: DocumentNode): void {
    this.#documents.set(query, document);
    this.#chars += query.length;
  }
}

/** The schema a document is checked against, and the bounds it must keep. */
export interface DocumentRules {
  schema: GraphQLSchema;
  /** Validated documents by query text (only valid ones are kept), to skip parse and validate. */
  documents?: DocumentCache | undefined;
  /** Upper bound on the tokens of a document, checked while parsing (LIMIT_EXCEEDED). */
  maxTokens?: number | undefined;
  /**
   * Cheap rules bounding a document's shape (depth, aliases…), run before `validationRules` so
   * that a hostile document is refused before the costlier rules walk it.
   */
  limitRules?: readonly ValidationRule[] | undefined;
  validationRules?: readonly ValidationRule[] | undefined;
  /**
   * Checks run per request after validation and before execution: limits that depend on the
   * request's variables, which cannot be cached with the validated document. Any error returned
   * refuses the request.
   */
  checkRequest?: ((request: LimitedRequest) => readonly GraphQLError[]) | undefined;
}

/** Whether a document has more than `max` tokens, counted the way the parser counts them. */
function exceedsTokens(query: string, max: number): boolean {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) if (++count > max) return true;
  } catch {
    // A lexical error before the limit: a syntax error, not a document too long.
  }
  return false;
}

/** A document nested so deeply that parsing or validating it exhausted the stack. */
function tooDeeplyNested(): GraphQLError {
  return limitError('nesting', undefined, 'The document is nested too deeply to be read');
}

/** Parses a document, telling a syntax error from a document over a size limit. */
function parseDocument(query: string, maxTokens: number | undefined): DocumentNode | GraphQLError {
  try {
    return parse(query, maxTokens === undefined ? {} : { maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError) {
      // Told apart by counting rather than by the parser's wording of its message.
      if (maxTokens === undefined || !exceedsTokens(query, maxTokens)) return err;
      return limitError('maxTokens', maxTokens, `Document token limit of ${maxTokens} exceeded (setting maxTokens)`);
    }
    // The parser descends recursively; thousands of nested brackets fit in a token budget.
    if (err instanceof RangeError) return tooDeeplyNested();
    throw err;
  }
}

/** Validation errors of a document: the limit rules first, the others only once those pass. */
function validateDocument(document: DocumentNode, rules: DocumentRules): readonly GraphQLError[] {
  try {
    if (rules.limitRules && rules.limitRules.length > 0) {
      const limited = validate(rules.schema, document, rules.limitRules);
      if (limited.length > 0) return limited;
    }
    return validate(rules.schema, document, rules.validationRules ?? specifiedRules);
  } catch (err) {
    if (err instanceof RangeError) return [tooDeeplyNested()];
    throw err;
  }
}

/** A request's operation, ready to run, or why it cannot run (with the code its errors take). */
export type PreparedOperation<E> =
  | { document: DocumentNode; operation: OperationDefinitionNode | null }
  | { errors: readonly GraphQLError[]; code: ErrorCode }
  | { early: E };

/**
 * Parse (or the document cache), validation with the limit rules first, and the per-request
 * checks. `early` may answer for the transport once the operation is known (HTTP refuses
 * mutations sent with GET).
 */
export function prepareOperation<E>(
  params: { query: string; operationName?: string | undefined; variables?: Readonly<Record<string, unknown>> | undefined },
  rules: DocumentRules,
  early?: (operation: OperationDefinitionNode | null) => E | undefined,
): PreparedOperation<E> {
  const cached = rules.documents?.get(params.query);
  const document = cached ?? parseDocument(params.query, rules.maxTokens);
  if (document instanceof GraphQLError) return { errors: [document], code: 'GRAPHQL_VALIDATION_FAILED' };
  const operation = getOperationAST(document, params.operationName) ?? null;
  const answered = early?.(operation);
  if (answered !== undefined) return { early: answered };
  if (!cached) {
    const validationErrors = validateDocument(document, rules);
    if (validationErrors.length > 0) return { errors: validationErrors, code: 'GRAPHQL_VALIDATION_FAILED' };
    rules.documents?.set(params.query, document);
  }
  if (operation && rules.checkRequest) {
    const refused = rules.checkRequest({ schema: rules.schema, document, operation, variables: params.variables });
    if (refused.length > 0) return { errors: refused, code: 'LIMIT_EXCEEDED' };
  }
  return { document, operation };
}
