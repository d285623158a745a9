import 'reflect-metadata';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { applyFilterOperators } from './filter-inputs.js';
import { DateTimeScalar } from './scalars.js';
import { resolvers } from './resolvers.js';
import { VALIDATION_SETTINGS } from './validators.js';

/** Builds the executable schema shared by Apollo (/graphql) and the REST layer (rest-compat). */
export async function createSchema(): Promise<GraphQLSchema> {
  applyFilterOperators();
  const schema = await buildSchema({
    resolvers: [...resolvers],
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    // Every optional input field says how it treats null (Nullable or Present), so nothing is skipped implicitly.
    validate: VALIDATION_SETTINGS,
    emitSchemaFile: false,
  });
  // The root types have no class to decorate; they are described here.
  schema.getQueryType()!.description = 'Reads, always within the tenant named by the X-Tenant header.';
  schema.getMutationType()!.description = 'Writes, always within the tenant named by the X-Tenant header.';
  return schema;
}

/** The SDL committed as schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
