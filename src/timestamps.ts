/**
 * The one home of the service's timestamp and date forms. Reading them from PostgreSQL is the driver's
 * job (node-postgres and the ORM give Dates); these write what the API shows and read what clients send.
 */

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: times originate in JavaScript, so microseconds 4-6 are truly zero. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, -1)}000Z`;
}

/** `YYYY-MM-DDTHH:MM:SSZ`, whole seconds, as Open Badges and Blockcerts documents write them. */
export function formatSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** `YYYY-MM-DD` of a Date (UTC), or the date part of a date string. */
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

/** An ISO 8601 timestamp or a plain `YYYY-MM-DD` (midnight UTC); undefined for anything else. */
export function parseTimestamp(value: string): Date | undefined {
  const date = parseDate(value) ?? (/^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : undefined);
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
