import 'reflect-metadata';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { applyFilterOperators } from './filter-inputs.js';
import { DateTimeScalar } from './scalars.js';
import { resolvers } from './resolvers.js';
import { VALIDATION_SETTINGS } from './validators.js';

let built: Promise<GraphQLSchema> | undefined;

/**
 * The executable schema shared by Apollo (/graphql) and the REST layer (rest-compat). It depends on the
 * code alone, so it is built once a process: every service started in it (tests start several) shares it.
 */
export function createSchema(): Promise<GraphQLSchema> {
  built ??= buildExecutableSchema().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function buildExecutableSchema(): Promise<GraphQLSchema> {
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
