import { parseIsoTimestamp } from '../src/timestamps.js';

/** The digit reader must give exactly the instant `new Date(text)` gives, or step aside. */
describe('parseIsoTimestamp', () => {
  const random = (below: number) => Math.floor(Math.random() * below);
  const pad = (value: number, width: number) => String(value).padStart(width, '0');

  it('reads row_to_json timestamps as new Date does, over many random instants, fractions and offsets', () => {
    for (let index = 0; index < 20_000; index++) {
      const instant = new Date(Date.UTC(100 + random(9800), random(12), 1 + random(31), random(24), random(60), random(60), random(1000)));
      const base = instant.toISOString().slice(0, 19);
      const fraction = ['', `.${pad(random(10), 1)}`, `.${pad(random(100), 2)}`, `.${pad(random(1000), 3)}`, `.${pad(random(1_000_000), 6)}`][random(5)];
      const offsetMinutes = [0, 0, 330, -180, 600, -570][random(6)]!;
      const offset = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60), 2)}:${pad(Math.abs(offsetMinutes) % 60, 2)}`;
      const text = `${base}${fraction}${random(5) === 0 ? 'Z' : offset}`;
      expect([text, parseIsoTimestamp(text)?.getTime()]).toEqual([text, new Date(text).getTime()]);
    }
  });

  it('takes the fast path for the common form', () => {
    expect(parseIsoTimestamp('2026-11-23T11:51:16.895387+00:00')?.toISOString()).toBe('2026-11-23T11:51:16.895Z');
    expect(parseIsoTimestamp('2025-04-02T00:00:00+00:00')?.toISOString()).toBe('2025-04-02T00:00:00.000Z');
    expect(parseIsoTimestamp('2025-04-02T23:30:00.5-03:00')?.toISOString()).toBe('2025-04-03T02:30:00.500Z');
  });

  it('knows the length of every month, leap days included', () => {
    for (const [text, iso] of [
      ['2024-02-29T12:00:00+00:00', '2024-02-29T12:00:00.000Z'],
      ['2000-02-29T00:00:00+00:00', '2000-02-29T00:00:00.000Z'],
      ['2026-01-31T23:59:59.999+00:00', '2026-01-31T23:59:59.999Z'],
      ['2026-12-31T23:00:00-03:00', '2027-01-01T02:00:00.000Z'],
      ['0100-03-01T00:00:00Z', '0100-03-01T00:00:00.000Z'],
    ])
      expect(parseIsoTimestamp(text!)?.toISOString()).toBe(iso);
    for (const text of ['2023-02-29T00:00:00+00:00', '1900-02-29T00:00:00+00:00', '2026-04-31T00:00:00+00:00', '2026-01-32T00:00:00+00:00'])
      expect([text, parseIsoTimestamp(text)]).toEqual([text, undefined]);
  });

  it.each([
    ['a space for the T', '2026-11-23 11:51:16.895+00'],
    ['no offset (local time)', '2026-11-23T11:51:16.895'],
    ['an offset with seconds', '1890-01-01T00:00:00+00:53:28'],
    ['an empty fraction', '2026-11-23T11:51:16.+00:00'],
    ['a day the month does not have', '2026-02-30T00:00:00+00:00'],
    ['a two-digit year', '0099-01-01T00:00:00+00:00'],
    ['a letter in a field', '2026-1a-23T11:51:16+00:00'],
    ['infinity', 'infinity'],
    ['a date only', '2026-11-23'],
  ])('leaves %s to the general parser', (_name, text) => {
    expect(parseIsoTimestamp(text)).toBeUndefined();
  });
});
