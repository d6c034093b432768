// A runner for a schema executed by graphql-js with its own resolvers (the management API):
// the same preparation and error formatting as the data API, without persisted documents.

import { execute } from 'graphql';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { badInput } from '../../errors/index.js';
import type { ErrorCode } from '../../errors/index.js';
import { asGraphQLError, codeOf, formatErrors } from './format.js';
import type { FormatOptions } from './format.js';
import type { OperationNote, OperationRequest, OperationRunner, Operated, RunOptions } from './outcome.js';
import { prepareOperation } from './prepare.js';
import type { DocumentRules } from './prepare.js';

export interface SchemaOperationsOptions extends DocumentRules, FormatOptions {
  schema: GraphQLSchema;
  contextValue: unknown;
}

export function schemaOperations(options: SchemaOperationsOptions): OperationRunner {
  return {
    async run<E>(request: OperationRequest, runOptions: RunOptions<E> = {}): Promise<Operated<E>> {
      const note: OperationNote = { type: 'unknown', outcome: 'ok' };
      const refused = (errors: readonly GraphQLError[], code: ErrorCode): Operated<E> => {
        const formatted = formatErrors(errors, options, code);
        note.outcome = String(formatted[0]?.extensions?.code ?? code);
        return { outcome: { kind: 'refused', errors: formatted }, note };
      };
      if (request.query === undefined) return refused([asGraphQLError(badInput('Persisted queries are not served here: send "query"'))], 'BAD_USER_INPUT');
      const { operationName, variables } = request;
      const prepared = prepareOperation({ query: request.query, operationName, variables }, options, runOptions.early);
      if ('early' in prepared) return { outcome: { kind: 'early', value: prepared.early }, note };
      if ('errors' in prepared) return refused(prepared.errors, prepared.code);
      const { document, operation } = prepared;
      note.type = operation?.operation ?? 'unknown';
      if (operation?.name) note.name = operation.name.value;
      const result = await execute({ schema: options.schema, document, contextValue: options.contextValue, variableValues: variables, operationName });
      // No `data` at all means the operation never ran: bad variables or an unknown operation name.
      if (!('data' in result)) return refused(result.errors ?? [], 'BAD_USER_INPUT');
      const errors = formatErrors(result.errors ?? [], options);
      if (errors[0]) note.outcome = codeOf(errors[0]) ?? 'INTERNAL';
      const hasData = result.data !== null && result.data !== undefined;
      return { outcome: { kind: 'result', schema: options.schema, document, data: JSON.stringify(result.data ?? null), hasData, errors }, note };
    },
  };
}
