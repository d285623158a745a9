/**
 * Days since 1970-01-01 to and from proleptic Gregorian dates, by integer arithmetic (the "days from
 * civil" algorithms, March-based years of 400-year eras): what Date.UTC and the getUTC* getters work
 * out, without a call into the engine per field. A page of rows parses and writes hundreds of timestamps.
 */
export const DAY_MS = 86_400_000;

/** Day number of `year`-`month`-`day` (month 1-12); the caller checks that the day exists. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date of day number `days`, written into `into` (reused: no object per call). */
export function civilFromDays(days: number, into: { year: number; month: number; day: number }): void {
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
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
