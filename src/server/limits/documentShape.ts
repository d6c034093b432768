// Limits on the shape of a document — selection depth, aliases, directives — as validation
// rules, so they are checked once per document and cached with it. The counting is
// graphql-armor's; these wrappers report a coded LIMIT_EXCEEDED instead of throwing.

import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLError, ValidationContext, ValidationRule } from 'graphql';
import { limitError } from './limitError.js';
import type { LimitName } from './limitError.js';

/** graphql-armor prefixes its messages as if they were syntax errors; they are not. */
function reason(error: GraphQLError): string {
  return error.message.replace(/^Syntax Error:\s*/, '').replace(/\.$/, '');
}

function reporting(limit: LimitName, maximum: number) {
  return {
    propagateOnRejection: false,
    exposeLimits: true,
    onAccept: [],
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) =>
        context?.reportError(limitError(limit, maximum, `${reason(error)} (app setting ${limit})`)),
    ],
  };
}

/**
 * Depth of selections: `{ viewer { id } }` is 2. Fragments count as the selections they hold
 * (`flattenFragments`), and introspection is counted like any other selection, since
 * `__Type.fields.type.fields…` nests without end.
 */
export function depthRule(maximum: number): ValidationRule {
  return maxDepthRule({ n: maximum, flattenFragments: true, ignoreIntrospection: false, ...reporting('maxDepth', maximum) });
}

/** Aliases in an operation, fragments included as often as they are spread; `__typename` aliases are free. */
export function aliasesRule(maximum: number): ValidationRule {
  return maxAliasesRule({ n: maximum, ...reporting('maxAliases', maximum) });
}

/** Directives in an operation (`@skip`, `@include`, …), fragments included as often as they are spread. */
export function directivesRule(maximum: number): ValidationRule {
  return maxDirectivesRule({ n: maximum, ...reporting('maxDirectives', maximum) });
}
