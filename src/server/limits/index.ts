// Request limits of an app's data API, built from its settings: validation rules checked once
// per document (depth, aliases, directives, literal nesting, the introspection switch) and
// checks run per request before execution (variable nesting, cost with the request's page sizes).

import { NoSchemaIntrospectionCustomRule, specifiedRules } from 'graphql';
import type { DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import type { AppSettings } from '../../model/index.js';
import { operationCost } from './cost.js';
import { aliasesRule, depthRule, directivesRule } from './documentShape.js';
import { limitError } from './limitError.js';
import { checkVariableDepth, literalDepthRule } from './valueDepth.js';

export { operationCost } from './cost.js';
export type { CostRequest } from './cost.js';
export { limitError } from './limitError.js';
export type { LimitName } from './limitError.js';
export { withoutSuggestions } from './suggestions.js';
export { MAX_VALUE_DEPTH, nestsDeeperThan } from './valueDepth.js';

/** What the per-request checks see: a validated document and the request's raw variables. */
export interface LimitedRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Readonly<Record<string, unknown>> | undefined;
}

export interface AppLimits {
  /** Bounds on a document's shape, checked before the other rules and cached with the document. */
  limitRules: readonly ValidationRule[];
  /** graphql-js's rules, and the introspection switch. */
  validationRules: readonly ValidationRule[];
  checkRequest: (request: LimitedRequest) => GraphQLError[];
  /** Whether error messages may suggest names ("Did you mean …?"). */
  suggestions: boolean;
  maxTokens: number;
}

/** The limits on a document's shape for an app with these settings. */
export function limitRules(settings: AppSettings): ValidationRule[] {
  return [depthRule(settings.maxDepth), aliasesRule(settings.maxAliases), directivesRule(settings.maxDirectives), literalDepthRule];
}

/** The validation rules proper; closing introspection refuses `__schema` and `__type`, not `__typename`. */
export function validationRules(settings: AppSettings): ValidationRule[] {
  return settings.introspection ? [...specifiedRules] : [...specifiedRules, NoSchemaIntrospectionCustomRule];
}

/**
 * What a validated document's verdict depends on besides the schema: the settings read by
 * `limitRules`, `validationRules` and the parser's token limit. Apps of one schema whose
 * settings give the same key may share their validated documents.
 */
export function documentRulesKey(settings: AppSettings): string {
  return [settings.maxDepth, settings.maxAliases, settings.maxDirectives, settings.maxTokens, settings.introspection].join(':');
}

/** The checks that depend on the request's variables; an empty list lets it run. */
export function requestChecks(settings: AppSettings): (request: LimitedRequest) => GraphQLError[] {
  return (request) => {
    const deep = checkVariableDepth(request.variables);
    if (deep.length > 0) return deep;
    const cost = operationCost({ schema: request.schema, document: request.document, operation: request.operation, variables: request.variables, defaultPageSize: settings.defaultPageSize });
    if (cost <= settings.maxCost) return [];
    const found = Number.isFinite(cost) ? String(cost) : 'more than that';
    return [limitError('maxCost', settings.maxCost, `Query cost limit of ${settings.maxCost} exceeded, found ${found} (app setting maxCost)`, [request.operation])];
  };
}

// Settings objects are replaced, not changed, when an app's settings change (the registry
// loads the app anew), so they key the built limits safely.
const built = new WeakMap<AppSettings, AppLimits>();

export function appLimits(settings: AppSettings): AppLimits {
  let limits = built.get(settings);
  if (!limits) {
    limits = {
      limitRules: limitRules(settings),
      validationRules: validationRules(settings),
      checkRequest: requestChecks(settings),
      suggestions: settings.fieldSuggestions,
      maxTokens: settings.maxTokens,
    };
    built.set(settings, limits);
  }
  return limits;
}
