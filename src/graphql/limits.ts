import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { guardOperation } from './operation-guard.js';

export interface GraphqlLimits {
  /** Nesting of selections (GRAPHQL_MAX_DEPTH). */
  maxDepth: number;
  /** Rows an operation may make the service load (GRAPHQL_MAX_COST, see cost.ts). */
  maxCost: number;
  /** Bytes of one JSON answer (RESPONSE_MAX_BYTES); enforced while it is built and written (released-answers.ts). */
  maxResponseBytes: number;
  /** Runs of a document after which it executes compiled (GRAPHQL_JIT_AFTER_RUNS; 0: never). */
  jitAfterRuns: number;
  /** "Did you mean …" hints name fields a client did not ask for; off in production. */
  fieldSuggestions: boolean;
}

/** Fixed: no legitimate operation of this schema comes near them, and they bound what parsing and validation cost. */
const MAX_ALIASES = 15;
const MAX_TOKENS = 2000;
const MAX_DIRECTIVES = 20;

/** Checks what the client sent (text, cost) once the operation is known, before it executes. */
function guardPlugin(schema: GraphQLSchema, maxCost: number): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, document, request, operationName }) {
          await guardOperation(contextValue, maxCost, schema, document, request.variables, operationName);
        },
      };
    },
  };
}

/** "Cannot query field "nam" on type "Student". Did you mean "name"?" without its hint. */
export const withoutSuggestions = (message: string): string => message.replace(/ ?Did you mean [^?]*\?/g, '');

/** graphql-armor's depth, alias and directive limits, graphql-js's token limit, plus the service's own cost and text checks. */
export function graphqlLimits(
  schema: GraphQLSchema,
  limits: GraphqlLimits,
): { plugins: ApolloServerPlugin<RequestContext>[]; validationRules: ValidationRule[]; parseOptions: { maxTokens: number } } {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth, ignoreIntrospection: true },
    maxAliases: { n: MAX_ALIASES },
    // graphql-js counts tokens itself (parseOptions below); armor's plugin re-parses in a hook where a syntax error becomes a 500.
    maxTokens: { enabled: false },
    maxDirectives: { n: MAX_DIRECTIVES },
    // Suggestions are removed from every message in formatError (apollo.ts), enum values' included.
    blockFieldSuggestion: { enabled: false },
    // Armor's cost counts fields, not rows: cost.ts multiplies by `first`, which is what the database pays.
    costLimit: { enabled: false },
  }).protect();
  return {
    plugins: [...(armor.plugins as ApolloServerPlugin<RequestContext>[]), guardPlugin(schema, limits.maxCost)],
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: MAX_TOKENS },
  };
}
