import type { ErrorRequestHandler } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { classifyError, type ClassifiedError, errorHeaders } from '../errors/classify.js';
import { DomainError, ERROR_STATUS } from '../errors/domain-error.js';
import { sendErrorBody } from '../http/error-response.js';
import { noteErrorCodes } from '../http/request-record.js';
import { withoutSuggestions } from './limits.js';

/** One GraphQL error as the client sees it: the message, and `extensions` with the code, field errors, reason and details. */
function formatted({ code, message, fieldErrors, reason, details, internal }: ClassifiedError, shown: (message: string) => string, documentCode?: unknown) {
  const extensions: Record<string, unknown> = { code: documentCode ?? code };
  if (fieldErrors) extensions.errors = fieldErrors;
  if (reason) extensions.reason = reason;
  Object.assign(extensions, details);
  return { message: internal ? 'Internal server error.' : shown(message), extensions };
}

/** The one GraphQL error formatter (Apollo's `formatError`); without field suggestions, "Did you mean" hints are cut. */
export function formatGraphqlError(fieldSuggestions: boolean) {
  const shown = fieldSuggestions ? (message: string) => message : withoutSuggestions;
  return (original: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const classified = classifyError(error);
    // Document errors keep graphql-js/Apollo's own codes (GRAPHQL_VALIDATION_FAILED, ...) for GraphQL clients;
    // a DomainError's BAD_REQUEST (an upload the request lacks) is the core's own and stays.
    const fromDocument = classified.code === 'BAD_REQUEST' && !(error instanceof GraphQLError && error.originalError instanceof DomainError);
    const { message, extensions } = formatted(classified, shown, fromDocument ? original.extensions?.code : undefined);
    return { message, locations: original.locations, path: original.path, extensions };
  };
}

/**
 * Failures on /graphql before Apollo runs (authentication, the tenant header, a busy database), in
 * the GraphQL response shape with the error's HTTP status and headers; anything else goes on to the
 * app's error handler.
 */
export const graphqlRequestErrors: ErrorRequestHandler = (error, req, res, next) => {
  const classified = classifyError(error);
  if (classified.internal) return next(error);
  noteErrorCodes(res, [classified.code]);
  res.set(errorHeaders(classified.code, req.get('authorization') ? 'bearer' : 'none'));
  sendErrorBody(res, ERROR_STATUS[classified.code], { errors: [formatted(classified, (message) => message)] });
};
