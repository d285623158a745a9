import 'reflect-metadata';
import {
  astFromValue,
  GraphQLError,
  type GraphQLInputField,
  type GraphQLArgument,
  type GraphQLSchema,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  lexicographicSortSchema,
  printSchema,
  validateSchema,
} from 'graphql';
import { buildSchema, GeneratingSchemaError } from 'type-graphql';
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
    // type-graphql checks a new schema by running the whole introspection query on it (a quarter of a
    // second of every start); checkSchema finds the same faults directly.
    skipCheck: true,
  });
  checkSchema(schema);
  // The root types have no class to decorate; they are described here.
  schema.getQueryType()!.description = 'Reads, always within the tenant named by the X-Tenant header.';
  schema.getMutationType()!.description = 'Writes, always within the tenant named by the X-Tenant header.';
  return schema;
}

/**
 * What type-graphql's introspection check surfaces, found without executing introspection: the
 * schema's validation errors (execution asserts a valid schema first), and any argument or input
 * field default that introspection could not print (`astFromValue` throws on it).
 */
function checkSchema(schema: GraphQLSchema): void {
  const errors: GraphQLError[] = [...validateSchema(schema)];
  const inputValues: { owner: string; value: GraphQLArgument | GraphQLInputField }[] = schema
    .getDirectives()
    .flatMap((directive) => directive.args.map((value) => ({ owner: `@${directive.name}`, value })));
  for (const type of Object.values(schema.getTypeMap())) {
    if (isInputObjectType(type)) inputValues.push(...Object.values(type.getFields()).map((value) => ({ owner: type.name, value })));
    else if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) inputValues.push(...field.args.map((value) => ({ owner: `${type.name}.${field.name}`, value })));
  }
  for (const { owner, value } of inputValues) {
    try {
      astFromValue(value.defaultValue, value.type);
    } catch (error) {
      errors.push(new GraphQLError(`${owner}(${value.name}:): its default value cannot be printed: ${(error as Error).message}`));
    }
  }
  if (errors.length > 0) throw new GeneratingSchemaError(errors);
}

/** The SDL committed as schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
