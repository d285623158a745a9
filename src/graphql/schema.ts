import 'reflect-metadata';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';
import { INPUT_VALIDATION } from './validators.js';
import { resolvers } from './resolvers.js';

/** Builds the executable schema shared by Apollo (/graphql) and the REST layer (rest-compat). */
export function createSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [...resolvers],
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    // Every optional input field says how it treats null (Nullable or Present), so nothing is skipped implicitly.
    validate: INPUT_VALIDATION,
    emitSchemaFile: false,
  });
}

/** The SDL committed as schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
