import { GraphQLError } from 'graphql';
import { DomainError, type ErrorCode, type FieldErrors, isErrorCode, summarize } from './domain-error.js';
import { isDatabaseBusy, serviceBusy } from './unavailable.js';

/** What a client is told about a failure, before a transport shapes it. */
export interface ClassifiedError {
  code: ErrorCode;
  message: string;
  fieldErrors?: FieldErrors;
  /** True for failures that are our bug, not the client's: logged, never detailed to the client. */
  internal: boolean;
}

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

/** "dateOfBirth" → "date of birth", as Laravel names attributes in its messages. */
export function humanize(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[._]/g, ' ')
    .toLowerCase();
}

function validationFieldErrors(errors: ValidationErrorLike[], prefix = ''): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) result[field] = Object.values(error.constraints);
    Object.assign(result, validationFieldErrors(error.children ?? [], field));
  }
  return result;
}

const INVALID_VARIABLE = /^Variable "\$(\w+)" got invalid value .*?(?: at "([\w.[\]]+)")?; ([\s\S]*)$/;
const MISSING_FIELD = /^Field "(\w+)" of required type "[^"]+" was not provided\.$/;
const UNKNOWN_FIELD = /^Field "(\w+)" is not defined by type "[^"]+"\./;
const NOT_NULL = /^Variable "\$(\w+)" of non-null type "[^"]+" must not be null\.$/;

const TYPE_REASONS: [RegExp, string][] = [
  [/^String cannot represent/, 'must be a string'],
  [/^Int cannot represent/, 'must be an integer'],
  [/^Float cannot represent/, 'must be a number'],
  [/^Boolean cannot represent/, 'must be true or false'],
  [/^ID cannot represent/, 'must be a string'],
  [/^Expected type "\w+" to be an object/, 'must be an object'],
];

/** Laravel-style wording for graphql-js's coercion reasons. */
function reasonMessage(field: string, reason: string): string {
  const name = humanize(field);
  if (/^Value ".*" does not exist in ".*" enum/.test(reason)) return `The selected ${name} is invalid.`;
  const typed = TYPE_REASONS.find(([pattern]) => pattern.test(reason));
  if (typed) return `The ${name} ${typed[1]}.`;
  return `The ${name} is invalid: ${reason.replace(/\.$/, '')}.`;
}

/** Turns GraphQL's variable coercion messages into per-field messages ("input.name" → "name"). */
function coercionFieldErrors(message: string): FieldErrors | undefined {
  const nonNull = NOT_NULL.exec(message);
  if (nonNull) return { [nonNull[1]!]: [`The ${humanize(nonNull[1]!)} field is required.`] };
  const match = INVALID_VARIABLE.exec(message);
  if (!match) return undefined;
  const [, variable, at, reason] = match;
  // `input.name` reports as `name`; other variables keep their name (`where.status`, `sort.column`).
  const path = (at ?? variable!).replace(/\[\d+\]/g, '').split('.');
  if (path[0] === 'input') path.shift();
  const missing = MISSING_FIELD.exec(reason!);
  if (missing) {
    const field = [...path, missing[1]!].join('.');
    return { [field]: [`The ${humanize(missing[1]!)} field is required.`] };
  }
  const unknown = UNKNOWN_FIELD.exec(reason!);
  if (unknown) return { [[...path, unknown[1]!].join('.')]: [`The ${humanize(unknown[1]!)} field is not accepted here.`] };
  const field = path.join('.') || variable!;
  return { [field]: [reasonMessage(path.at(-1) ?? variable!, reason!)] };
}

/** One classification of any error raised while serving a GraphQL operation. */
export function classifyError(error: unknown): ClassifiedError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof DomainError) {
    return { code: original.code, message: original.message, fieldErrors: original.fieldErrors, internal: false };
  }
  if (isDatabaseBusy(original)) return { code: 'SERVICE_UNAVAILABLE', message: serviceBusy().message, internal: false };
  if (!(error instanceof GraphQLError)) {
    return { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.', internal: true };
  }
  const validation = (error.extensions?.validationErrors ?? (original as { extensions?: { validationErrors?: unknown } })?.extensions?.validationErrors) as
    ValidationErrorLike[] | undefined;
  if (validation) {
    const fieldErrors = validationFieldErrors(validation);
    return { code: 'BAD_USER_INPUT', message: summarize(fieldErrors), fieldErrors, internal: false };
  }
  const coerced = coercionFieldErrors(error.message);
  if (coerced) return { code: 'BAD_USER_INPUT', message: summarize(coerced, error.message), fieldErrors: coerced, internal: false };
  const code = error.extensions?.code;
  if (!error.originalError || original instanceof GraphQLError) {
    // Parse/validation errors of the document itself, raised by graphql-js, carry no internals.
    if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN' || code === 'NOT_FOUND' || code === 'BAD_USER_INPUT') {
      return { code, message: error.message, internal: false };
    }
    if (code === undefined || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'GRAPHQL_PARSE_FAILED') {
      return { code: 'BAD_REQUEST', message: error.message, internal: false };
    }
    if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') return { code, message: error.message, internal: false };
  }
  return { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.', internal: true };
}
