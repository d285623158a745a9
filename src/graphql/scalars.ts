import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { civilFromDays, DAY_MS } from '../utc-days.js';

const DIGIT = 48;
const FIRST_4_DIGIT_YEAR_MS = Date.UTC(1000, 0, 1);
const FIRST_5_DIGIT_YEAR_MS = Date.UTC(10_000, 0, 1);
/** Reused by every call: the service formats on one thread, one timestamp at a time. */
const civil = { year: 0, month: 0, day: 0 };

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Times originate in JavaScript, so digits 4-6 are truly zero.
 * The fields come from integer arithmetic on the time value (utc-days.ts), not from toISOString()
 * (five times the cost) or the getUTC* getters, and the text is made in one String.fromCharCode: a
 * flat string, where a template literal would leave a tree of a dozen concatenated pieces that
 * JSON.stringify then flattens one by one. A page of rows formats hundreds of these.
 */
export function formatTimestamp(date: Date): string {
  const time = date.getTime();
  if (!(time >= FIRST_4_DIGIT_YEAR_MS && time < FIRST_5_DIGIT_YEAR_MS)) return `${date.toISOString().slice(0, -1)}000Z`;
  const days = Math.floor(time / DAY_MS);
  civilFromDays(days, civil);
  const { year, month, day } = civil;
  let rest = time - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const milliseconds = rest - seconds * 1000;
  const century = Math.floor(year / 100);
  const yearOfCentury = year - century * 100;
  // prettier-ignore
  return String.fromCharCode(
    tens(century), ones(century), tens(yearOfCentury), ones(yearOfCentury), 45, tens(month), ones(month), 45, tens(day), ones(day),
    84, tens(hours), ones(hours), 58, tens(minutes), ones(minutes), 58, tens(seconds), ones(seconds),
    46, DIGIT + Math.floor(milliseconds / 100), tens(milliseconds % 100), ones(milliseconds), DIGIT, DIGIT, DIGIT, 90,
  );
}

const tens = (value: number) => DIGIT + Math.floor(value / 10);
const ones = (value: number) => DIGIT + (value % 10);

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
