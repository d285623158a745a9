/** `npm run schema`: regenerates schema/schema.graphql from the resolvers. */
import { writeFile } from 'node:fs/promises';
import { createSchema, printSdl } from './schema.js';

await writeFile('schema/schema.graphql', printSdl(await createSchema()));
console.log('schema/schema.graphql written');
