import { type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';

/** Every type, field, argument and enum value of the schema that a client sees, by its coordinate. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const types = Object.values(schema.getTypeMap()).filter((type: GraphQLNamedType) => !type.name.startsWith('__') && !isSpecifiedScalarType(type));
  for (const type of types) {
    if (!type.description) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name}:)`);
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
  }
  return missing;
}

describe('the GraphQL schema explains itself', () => {
  it('has a description on every type, field, argument and enum value', async () => {
    expect(undescribed(await createSchema())).toEqual([]);
  });
});
