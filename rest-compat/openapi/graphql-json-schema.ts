import {
  type FieldNode,
  getNamedType,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  type SelectionSetNode,
  Kind,
} from 'graphql';
import type { JsonSchema } from '../../src/http/route-contract.js';
import { toSnake } from '../case.js';
import { isRowsField, responseKey } from '../selection.js';

const UUID_EXAMPLE = '9b2f6c1e-3d4a-4f5b-8c7d-1e2f3a4b5c6d';

/** Built-in and service scalars as JSON Schema; an unknown scalar is a string described by its own description. */
function scalarSchema(type: GraphQLScalarType): JsonSchema {
  switch (type.name) {
    case 'ID':
      return { type: 'string', examples: [UUID_EXAMPLE] };
    case 'String':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date', examples: ['2026-01-31'] };
    case 'DateTime':
      return { type: 'string', format: 'date-time', examples: ['2026-01-31T12:00:00.000000Z'] };
    case 'JSONObject':
      return { type: 'object' };
    case 'JSON':
      return {};
    case 'Upload':
      return { type: 'string', format: 'binary' };
    default:
      return { type: 'string', ...(type.description ? { description: type.description } : {}) };
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    const withNull: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
    return withNull;
  }
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

const described = (schema: JsonSchema, description: string | null | undefined): JsonSchema => (description ? { ...schema, description } : schema);

const enumValues = (type: GraphQLEnumType) => type.getValues().map((value) => value.value as unknown);

/**
 * GraphQL types as JSON Schema for the OpenAPI document. Input objects and enums of inputs become
 * named components (REST names: snake_case members); outputs are written out for the selection a
 * route makes, under the keys it answers with, so a document shows exactly what a route returns.
 */
export class GraphqlJsonSchemas {
  readonly components: Record<string, JsonSchema> = {};

  /** An input type (a body, a where or sort parameter) by reference to its component. */
  input(type: GraphQLInputType, omit: ReadonlySet<string> = new Set()): JsonSchema {
    if (isNonNullType(type)) return this.input(type.ofType, omit);
    const schema = this.nonNullInput(type, omit);
    return nullable(schema);
  }

  /** As `input`, for a position that may not be null (`input: InstitutionInput!`). */
  requiredInput(type: GraphQLInputType, omit: ReadonlySet<string> = new Set()): JsonSchema {
    return this.nonNullInput(isNonNullType(type) ? type.ofType : type, omit);
  }

  private nonNullInput(type: GraphQLInputType, omit: ReadonlySet<string>): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.input(type.ofType) };
    if (isEnumType(type)) return this.component(type.name, () => described({ type: 'string', enum: enumValues(type) }, type.description));
    if (!isInputObjectType(type)) return scalarSchema(type as GraphQLScalarType);
    // Fields filled from the path (a nested create's parent) are not part of the body.
    if (omit.size > 0) return this.inputObject(type, omit);
    return this.component(type.name, () => this.inputObject(type, omit));
  }

  private inputObject(type: GraphQLInputObjectType, omit: ReadonlySet<string>): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if (omit.has(field.name)) continue;
      const key = toSnake(field.name);
      const schema = isNonNullType(field.type) ? this.requiredInput(field.type) : this.input(field.type);
      properties[key] = described(field.defaultValue === undefined ? schema : { ...schema, default: field.defaultValue }, field.description);
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(key);
    }
    return described({ type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }, type.description);
  }

  private component(name: string, build: () => JsonSchema): JsonSchema {
    if (!(name in this.components)) {
      this.components[name] = {}; // placeholder first: input types may refer to themselves
      this.components[name] = build();
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** A relation connection REST answers as the array of its nodes (`nestRows`), or undefined for any other field. */
  private relationOutput(node: FieldNode, type: GraphQLOutputType): JsonSchema | undefined {
    const connection = getNamedType(type);
    if (!isRowsField(node) || !isObjectType(connection)) return undefined;
    const nodes = node.selectionSet!.selections[0] as FieldNode;
    return this.output(connection.getFields().nodes!.type, nodes.selectionSet);
  }

  /** What a selection of an output type answers: the route's keys (snake_case aliases), nullability from the schema. */
  output(type: GraphQLOutputType, selectionSet?: SelectionSetNode, required?: ReadonlySet<string>): JsonSchema {
    if (isNonNullType(type)) return this.nonNullOutput(type.ofType, selectionSet, required);
    return nullable(this.nonNullOutput(type, selectionSet, required));
  }

  private nonNullOutput(type: GraphQLOutputType, selectionSet?: SelectionSetNode, required?: ReadonlySet<string>): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.output(type.ofType, selectionSet, required) };
    if (isEnumType(type)) return described({ type: 'string', enum: enumValues(type) }, type.description);
    if (!(isObjectType(type) || isInterfaceType(type)) || !selectionSet) return scalarSchema(getNamedType(type) as GraphQLScalarType);
    const properties: Record<string, JsonSchema> = {};
    const fieldsOfType = type.getFields();
    for (const selection of selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) continue;
      const node = selection as FieldNode;
      const definition = fieldsOfType[node.name.value];
      if (!definition) continue;
      properties[responseKey(node)] = described(
        this.relationOutput(node, definition.type) ?? this.output(definition.type, node.selectionSet),
        definition.description,
      );
    }
    const keys = Object.keys(properties);
    return described({ type: 'object', properties, required: required ? keys.filter((key) => required.has(key)) : keys }, type.description);
  }
}
