import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { jest } from '@jest/globals';
import { ByteParameterClient, WHOLE_BUFFER_BYTES, WholeBufferQuery } from '../src/db/byte-parameters.js';
import { createEmptyDatabase, type TestDatabase } from './support/database.js';

/**
 * The pool's Client writes large Buffer parameters into the Bind as they are (src/db/byte-parameters.ts):
 * what PostgreSQL receives must be what node-postgres itself would have sent.
 */
let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: database.ownerUrl, Client: ByteParameterClient, max: 1 });
  await pool.query('create table blobs (id int, label text, note text, at timestamptz, data bytea, tail bytea)');
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('Buffer parameters sent without copying', () => {
  it('store the same bytes and bind the other parameters as node-postgres does', async () => {
    const sent = jest.spyOn(WholeBufferQuery.prototype, 'prepare');
    const big = randomBytes(3 * WHOLE_BUFFER_BYTES + 17);
    // A view into a larger buffer: only its own bytes may go out.
    const backing = randomBytes(2 * WHOLE_BUFFER_BYTES);
    const view = backing.subarray(100, 100 + WHOLE_BUFFER_BYTES);
    const at = new Date('2025-03-04T05:06:07.089Z');
    const inserted = await pool.query('insert into blobs values ($1, $2, $3, $4, $5, $6) returning id, label, note, at, length(data) as size', [
      7,
      'zürich ✓',
      null,
      at,
      big,
      view,
    ]);
    expect(inserted.rows).toEqual([{ id: 7, label: 'zürich ✓', note: null, at, size: big.length }]);
    const { rows } = await pool.query('select data, tail from blobs where id = 7');
    expect(Buffer.compare(rows[0].data, big)).toBe(0);
    expect(Buffer.compare(rows[0].tail, view)).toBe(0);
    expect(sent).toHaveBeenCalledTimes(1); // the insert; the select had no Buffer parameter
    sent.mockRestore();
  });

  it('take the same path for a checked-out client awaited as a promise (as kysely queries)', async () => {
    const client = await pool.connect();
    try {
      const bytes = randomBytes(WHOLE_BUFFER_BYTES + 1);
      const result = await client.query('insert into blobs (id, data) values ($1, $2) returning md5(data) as md5', [8, bytes]);
      expect(result.rows).toEqual([{ md5: createHash('md5').update(bytes).digest('hex') }]);
    } finally {
      client.release();
    }
  });

  it('report a failing statement as an error and leave the connection usable', async () => {
    await expect(pool.query('insert into blobs (id, data) values ($1, $2)', ['not a number', randomBytes(WHOLE_BUFFER_BYTES)])).rejects.toThrow(
      /invalid input syntax for type integer/,
    );
    const { rows } = await pool.query('select count(*)::int as n from blobs');
    expect(rows).toEqual([{ n: 2 }]);
  });
});
