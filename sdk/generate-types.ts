/** `npm run sdk:generate`: rewrites the SDK's types from the OpenAPI document the code builds (no server needed). */
import { writeFile } from 'node:fs/promises';
import { SDK_TYPES_PATH, sdkTypes } from './type-generation.js';

await writeFile(SDK_TYPES_PATH, await sdkTypes());
console.log(`${SDK_TYPES_PATH} written`);
