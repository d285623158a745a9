import { readFile } from 'node:fs/promises';
import { createSchema, printSdl } from '../src/graphql/schema.js';
import { openOrm } from '../src/db/orm.js';
import { createTestDatabase } from './support/database.js';

describe('schema', () => {
  it('schema/schema.graphql is exactly what the resolvers generate (run `npm run schema` after changing them)', async () => {
    const committed = await readFile(new URL('../schema/schema.graphql', import.meta.url), 'utf8');
    expect(printSdl(await createSchema())).toBe(committed);
  });

  it('the committed migrations produce exactly the tables the entities describe', async () => {
    const database = await createTestDatabase();
    const orm = await openOrm(database.url);
    try {
      const drift = await orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(drift.trim()).toBe('');
    } finally {
      await orm.close();
      await database.drop();
    }
  });
});
