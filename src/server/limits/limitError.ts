// The error every request limit answers with: a GraphQLError whose original is a coded
// TesseraError, so it reaches the client as LIMIT_EXCEEDED naming the limit and its value.

import { GraphQLError } from 'graphql';
import type { ASTNode } from 'graphql';
import { TesseraError } from '../../errors/index.js';

/**
 * The app setting a limit comes from; `valueDepth` is the fixed bound on input value nesting,
 * `nesting` a document too deeply nested to be parsed or validated at all.
 */
export type LimitName = 'maxDepth' | 'maxAliases' | 'maxDirectives' | 'maxTokens' | 'maxCost' | 'valueDepth' | 'nesting';

export function limitError(limit: LimitName, maximum: number | undefined, message: string, nodes?: readonly ASTNode[]): GraphQLError {
  const original = new TesseraError('LIMIT_EXCEEDED', message, maximum === undefined ? { limit } : { limit, maximum });
  return new GraphQLError(message, { ...(nodes ? { nodes } : {}), originalError: original, extensions: { ...original.extensions } });
}
