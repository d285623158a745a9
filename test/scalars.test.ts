import { formatTimestamp } from '../src/timestamps.js';

describe('formatTimestamp', () => {
  it('writes what toISOString writes, with microseconds, for every field width', () => {
    const instants = [
      Date.UTC(1000, 0, 1),
      Date.UTC(1970, 0, 1),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 10, 23, 7, 5, 9, 7),
      Date.UTC(2026, 10, 23, 17, 45, 30, 45),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(1000, 1, 28, 23, 59, 59, 999),
      Date.UTC(1600, 1, 29, 12),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      ...Array.from({ length: 2000 }, (_, index) => Date.UTC(2000, 0, 1) + index * 7_919_999_777),
      ...Array.from({ length: 20_000 }, () => Date.UTC(1000, 0, 1) + Math.floor(Math.random() * (Date.UTC(10_000, 0, 1) - Date.UTC(1000, 0, 1)))),
    ];
    for (const instant of instants) {
      const date = new Date(instant);
      expect(formatTimestamp(date)).toBe(date.toISOString().replace('Z', '000Z'));
    }
  });

  it('keeps the ISO form beyond four-digit years and refuses an invalid date as toISOString does', () => {
    expect(formatTimestamp(new Date(Date.UTC(10000, 0, 1)))).toBe('+010000-01-01T00:00:00.000000Z');
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
