import { isUuid, uuidv7 } from '../src/db/uuid.js';

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant uuid carrying the time, unique across pool refills', () => {
    const ids = Array.from({ length: 2000 }, () => uuidv7(Date.UTC(2026, 10, 21)));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 300)) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2026, 10, 21));
    }
  });

  it('sorts in creation order within one millisecond too', () => {
    const ids = Array.from({ length: 1000 }, () => uuidv7(Date.UTC(2026, 10, 22)));
    expect([...ids].sort()).toEqual(ids);
  });

  it('sorts by creation time', () => {
    const earlier = uuidv7(1_000_000);
    const later = uuidv7(1_000_001);
    expect([later, earlier].sort()).toEqual([earlier, later]);
  });
});
