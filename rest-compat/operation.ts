import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLSchema,
  isListType,
  isNonNullType,
  Kind,
  OperationTypeNode,
  type TypeNode,
  validate,
  type VariableDefinitionNode,
  visit,
} from 'graphql';
import { toSnake } from './case.js';
import { type Selection, selectionSet } from './selection.js';

/** One root field of an operation: `alias: field(arg: $variable, ...) { selection }`. */
export interface RootField {
  field: string;
  /** The key the answer comes under; a route presents the one named `result`. */
  alias: string;
  /** Every argument of the field is bound to a variable of its own name, unless renamed here (argument → variable). */
  variables?: Record<string, string>;
  /** Omitted for fields of a scalar type (`deleteInstitution: Boolean!`). */
  selection?: Selection;
}

export interface OperationSpec {
  type: 'query' | 'mutation';
  /** The operation's name (`List`, `CreateInstitution`), seen in logs and cost errors. */
  name: string;
  fields: RootField[];
  /** Names the route in the boot error when the operation does not match the schema (`GET /institutions`). */
  route: string;
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

/** The AST of an input type as a variable declares it (`[ID!]!`). */
function typeNode(type: GraphQLInputType): TypeNode {
  if (isNonNullType(type)) return { kind: Kind.NON_NULL_TYPE, type: typeNode(type.ofType) as never };
  if (isListType(type)) return { kind: Kind.LIST_TYPE, type: typeNode(type.ofType) };
  return { kind: Kind.NAMED_TYPE, name: name(type.name) };
}

/** The root field bound to its variables, and the declarations of those variables (types from the schema). */
function rootField(schema: GraphQLSchema, spec: OperationSpec, root: RootField): { node: FieldNode; declared: Map<string, GraphQLInputType> } {
  const rootType = spec.type === 'query' ? schema.getQueryType() : schema.getMutationType();
  const definition = rootType?.getFields()[root.field];
  if (!definition) throw new RestOperationError(spec.route, [`the schema has no ${spec.type} field ${root.field}`]);
  const declared = new Map<string, GraphQLInputType>();
  const args: ArgumentNode[] = definition.args.map((arg) => {
    const variable = root.variables?.[arg.name] ?? arg.name;
    declared.set(variable, arg.type);
    return { kind: Kind.ARGUMENT, name: name(arg.name), value: { kind: Kind.VARIABLE, name: name(variable) } };
  });
  const node: FieldNode = {
    kind: Kind.FIELD,
    alias: name(root.alias),
    name: name(root.field),
    arguments: args,
    ...(root.selection ? { selectionSet: selectionSet(root.selection) } : {}),
  };
  return { node, declared };
}

/** A route's operation does not match the schema: the service refuses to start. */
export class RestOperationError extends Error {
  constructor(route: string, problems: string[]) {
    super(`REST route ${route}: its GraphQL operation does not match the schema: ${problems.join('; ')}`);
    this.name = 'RestOperationError';
  }
}

/** REST answers in snake_case: each camelCase field gets its snake_case alias, so results need no renaming pass. */
function withSnakeCaseAliases(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      const snake = toSnake(node.name.value);
      return node.alias || snake === node.name.value ? undefined : { ...node, alias: name(snake) };
    },
  });
}

/**
 * Builds a route's operation from the schema (in the manner of SOFA's operation builder: each
 * argument becomes a variable typed as the schema types it), validates it against the schema and
 * aliases it to snake_case. Throws RestOperationError naming the route when the schema and the
 * route disagree, so a schema change that breaks a route stops the service at boot.
 */
export function buildOperation(schema: GraphQLSchema, spec: OperationSpec): DocumentNode {
  const variables = new Map<string, GraphQLInputType>();
  const selections = spec.fields.map((root) => {
    const { node, declared } = rootField(schema, spec, root);
    // A variable used twice is declared with the stricter type.
    for (const [variable, type] of declared) if (!variables.has(variable) || isNonNullType(type)) variables.set(variable, type);
    return node;
  });
  const variableDefinitions: VariableDefinitionNode[] = [...variables].map(([variable, type]) => ({
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: name(variable) },
    type: typeNode(type),
  }));
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: spec.type === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
        name: name(spec.name),
        variableDefinitions,
        selectionSet: { kind: Kind.SELECTION_SET, selections },
      },
    ],
  };
  const problems = validate(schema, document);
  if (problems.length > 0)
    throw new RestOperationError(
      spec.route,
      problems.map((problem) => problem.message),
    );
  return withSnakeCaseAliases(document);
}

/** The root field names an operation runs (for the test that every resource has its REST routes). */
export function rootFieldsOf(document: DocumentNode): string[] {
  return document.definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION
      ? definition.selectionSet.selections.flatMap((node) => (node.kind === Kind.FIELD ? [node.name.value] : []))
      : [],
  );
}
