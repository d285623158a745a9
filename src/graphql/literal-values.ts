import { type GraphQLInputType, isInputObjectType, isListType, isNonNullType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

/** A leaf written in the document, as graphql-js reads literals (`parseLiteral`: an enum value is no string, a string no boolean): its value, or why it was refused. */
export class Literal {
  constructor(
    readonly written: unknown,
    readonly parsed: unknown,
    readonly refusal?: string,
  ) {}
}

/** A literal of `type` as `check` walks values: objects and lists as plain values, each leaf a `Literal`, a variable by its value. */
export function literalValue(node: ValueNode, type: GraphQLInputType, variables: Record<string, unknown>): unknown {
  if (node.kind === Kind.VARIABLE) return variables[node.name.value];
  if (node.kind === Kind.NULL) return null;
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable)) {
    return node.kind === Kind.LIST ? node.values.map((item) => literalValue(item, nullable.ofType, variables)) : literalValue(node, nullable.ofType, variables);
  }
  if (isInputObjectType(nullable)) {
    if (node.kind !== Kind.OBJECT) return valueFromASTUntyped(node, variables);
    const fields = nullable.getFields();
    return Object.fromEntries(
      node.fields.map(({ name, value }) => {
        const field = fields[name.value];
        return [name.value, field ? literalValue(value, field.type, variables) : valueFromASTUntyped(value, variables)];
      }),
    );
  }
  const written = valueFromASTUntyped(node, variables);
  try {
    const parsed = nullable.parseLiteral(node, variables);
    return new Literal(written, parsed, parsed === undefined ? `Expected type "${nullable.name}".` : undefined);
  } catch (error) {
    return new Literal(written, undefined, (error as Error).message);
  }
}
