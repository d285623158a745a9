import { DAY_MS, daysFromCivil, daysInMonth } from '../utc-days.js';

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
