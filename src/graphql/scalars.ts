import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** The bytes of one timestamp, rewritten in place for each (the service formats on one thread at a time). */
const SCRATCH = Buffer.from('0000-00-00T00:00:00.000000Z', 'latin1');
const ZERO = 0x30;

function writeDigits(at: number, value: number, digits: number): void {
  for (let index = at + digits - 1; index >= at; index--, value = (value / 10) | 0) SCRATCH[index] = ZERO + (value % 10);
}

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Times originate in JavaScript, so digits 4-6 are truly zero.
 * Built from the UTC fields rather than `toISOString()`, which costs three times as much, and a
 * page of rows formats hundreds of these. The digits are written into bytes and read out as one
 * flat string: a template literal would leave a tree of a dozen concatenated pieces per timestamp,
 * which JSON.stringify then flattens one by one (a third of a page's serialization) and the GC carries.
 */
export function formatTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return `${date.toISOString().slice(0, -1)}000Z`;
  writeDigits(0, year, 4);
  writeDigits(5, date.getUTCMonth() + 1, 2);
  writeDigits(8, date.getUTCDate(), 2);
  writeDigits(11, date.getUTCHours(), 2);
  writeDigits(14, date.getUTCMinutes(), 2);
  writeDigits(17, date.getUTCSeconds(), 2);
  writeDigits(20, date.getUTCMilliseconds(), 3);
  return SCRATCH.toString('latin1');
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
