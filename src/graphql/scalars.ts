import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { formatDate, formatTimestamp, parseDate, parseTimestamp } from '../timestamps.js';

function parseTimestampValue(value: unknown): Date {
  if (typeof value !== 'string') throw new GraphQLError('A timestamp must be an ISO 8601 string.');
  const date = parseTimestamp(value);
  if (!date) throw new GraphQLError(`"${value}" is not a valid ISO 8601 timestamp.`);
  return date;
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'UTC timestamp, `YYYY-MM-DDTHH:MM:SS.ffffffZ`; inputs also accept a plain `YYYY-MM-DD`.',
  serialize: (value) => formatTimestamp(value instanceof Date ? value : new Date(String(value))),
  parseValue: parseTimestampValue,
  parseLiteral: (ast) => parseTimestampValue(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDateValue(value: unknown): string {
  if (typeof value !== 'string' || !parseDate(value)) throw new GraphQLError('A date must be a real calendar date written YYYY-MM-DD.');
  return value;
}

/** A calendar date, `YYYY-MM-DD`, kept as a string end to end. */
export const DateScalar = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'Calendar date, `YYYY-MM-DD`.',
  serialize: (value) => formatDate(value as Date | string),
  parseValue: parseDateValue,
  parseLiteral: (ast) => parseDateValue(ast.kind === Kind.STRING ? ast.value : undefined),
});
