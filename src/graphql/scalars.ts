import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Times originate in JavaScript, so digits 4-6 are truly zero. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, -1)}000Z`;
}

export function formatDate(date: Date | string): string {
  return typeof date === 'string' ? date.slice(0, 10) : date.toISOString().slice(0, 10);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses `YYYY-MM-DD` strictly (no rollover of 2024-02-31); undefined when it is not a real date. */
export function parseDate(value: string): Date | undefined {
  const match = DATE_ONLY.exec(value);
  if (!match) return undefined;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return formatDate(date) === value ? date : undefined;
}

function parseTimestamp(value: unknown): Date {
  if (typeof value !== 'string') throw new GraphQLError('A timestamp must be an ISO 8601 string.');
  const date = parseDate(value) ?? (/^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : undefined);
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError(`"${value}" is not a valid ISO 8601 timestamp.`);
  return date;
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'UTC timestamp, `YYYY-MM-DDTHH:MM:SS.ffffffZ`; inputs also accept a plain `YYYY-MM-DD`.',
  serialize: (value) => formatTimestamp(value instanceof Date ? value : new Date(String(value))),
  parseValue: parseTimestamp,
  parseLiteral: (ast) => parseTimestamp(ast.kind === Kind.STRING ? ast.value : undefined),
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
