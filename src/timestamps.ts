/**
 * The one home of the service's timestamp and date forms: what the API writes, what clients send, and
 * the ISO form of `row_to_json` rows (read by db/service-driver.ts). A page of rows parses and writes
 * hundreds of timestamps, so the hot two work on digits: with `new Date(text)` and `toISOString()`
 * instead, a list page cost about a quarter more Node CPU (issue 29's bench).
 */

const DIGIT = 48;
const FIRST_4_DIGIT_YEAR_MS = Date.UTC(1000, 0, 1);
const FIRST_5_DIGIT_YEAR_MS = Date.UTC(10_000, 0, 1);
/** Reused by every call: the service formats on one thread, one timestamp at a time. */
const civil = { year: 0, month: 0, day: 0 };

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Times originate in JavaScript, so digits 4-6 are truly zero.
 * The fields come from integer arithmetic on the time value (the day functions below), not from toISOString()
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

/**
 * `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, the form `row_to_json` gives timestamps in, read from its
 * digits: the same instant `new Date(text)` gives (fraction truncated to milliseconds), at a fraction of
 * its cost, and a page of rows carries hundreds. Anything else (another form, a day the month does not
 * have, years before 100) is undefined, for the caller's general parser.
 */
export function parseIsoTimestamp(text: string): Date | undefined {
  const length = text.length;
  if (length < 20 || text.charCodeAt(10) !== 84 /* T */) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hours = digits(text, 11, 2);
  const minutes = digits(text, 14, 2);
  const seconds = digits(text, 17, 2);
  if (text[4] !== '-' || text[7] !== '-' || text[13] !== ':' || text[16] !== ':') return undefined;
  if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && hours <= 23 && minutes <= 59 && seconds <= 59)) return undefined;
  if (day > 28 && day > daysInMonth(year, month)) return undefined;
  let at = 19;
  let milliseconds = 0;
  if (text[at] === '.') {
    let taken = 0;
    for (at++; at < length; at++) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      if (taken++ < 3) milliseconds = milliseconds * 10 + digit;
    }
    if (taken === 0) return undefined;
    for (; taken < 3; taken++) milliseconds *= 10;
  }
  let offsetMinutes: number;
  if (text[at] === 'Z' && at === length - 1) offsetMinutes = 0;
  else if ((text[at] === '+' || text[at] === '-') && at + 6 === length && text[at + 3] === ':') {
    const offsetHours = digits(text, at + 1, 2);
    const offsetRest = digits(text, at + 4, 2);
    if (!(offsetHours <= 23 && offsetRest <= 59)) return undefined;
    offsetMinutes = (text[at] === '-' ? -1 : 1) * (offsetHours * 60 + offsetRest);
  } else return undefined;
  const sinceMidnight = ((hours * 60 + minutes - offsetMinutes) * 60 + seconds) * 1000 + milliseconds;
  return new Date(daysFromCivil(year, month, day) * DAY_MS + sinceMidnight);
}

/** The number written in `count` decimal digits at `from`; NaN when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Days since 1970-01-01 to and from proleptic Gregorian dates, by integer arithmetic (the "days from
 * civil" algorithms, March-based years of 400-year eras): what Date.UTC and the getUTC* getters work
 * out, without a call into the engine per field. A page of rows parses and writes hundreds of timestamps.
 */
const DAY_MS = 86_400_000;

/** Day number of `year`-`month`-`day` (month 1-12); the caller checks that the day exists. */
function daysFromCivil(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date of day number `days`, written into `into` (reused: no object per call). */
function civilFromDays(days: number, into: { year: number; month: number; day: number }): void {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  into.day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  into.month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  into.year = yearOfEra + era * 400 + (into.month <= 2 ? 1 : 0);
}

/** Days in `month` (1-12) of `year`. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
