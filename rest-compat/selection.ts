import { type FieldNode, Kind, type OperationDefinitionNode, parse, type SelectionSetNode } from 'graphql';

/**
 * A REST representation as GraphQL fields (AST). Written as selection text in the resource table,
 * parsed once, then composed only as AST: no document is ever assembled from strings.
 */
export type Selection = readonly FieldNode[];

/** Selection text (`uuid name institution { uuid name }`) or fields already parsed. */
export type SelectionSource = string | Selection;

/** The response key a field answers under: its alias, else its name. */
export const responseKey = (field: FieldNode): string => field.alias?.value ?? field.name.value;

/** Parses selection text (the body of a selection set, without braces) into fields. */
export function fields(source: SelectionSource): Selection {
  if (typeof source !== 'string') return source;
  const document = parse(`{${source}}`, { noLocation: true });
  const [operation] = document.definitions as OperationDefinitionNode[];
  const selections = operation!.selectionSet.selections;
  const notField = selections.find((selection) => selection.kind !== Kind.FIELD);
  if (notField) throw new Error(`REST selections are plain fields, not fragments: ${source}`);
  return selections as FieldNode[];
}

/** One field, as selection text (`institution { uuid name }`) or already parsed. */
export function field(source: string | FieldNode): FieldNode {
  if (typeof source !== 'string') return source;
  const parsed = fields(source);
  if (parsed.length !== 1) throw new Error(`Expected exactly one field: ${source}`);
  return parsed[0]!;
}

export const selectionSet = (selection: Selection): SelectionSetNode => ({ kind: Kind.SELECTION_SET, selections: selection });

/** `name { ...selection }`, optionally aliased. */
export function nest(name: string, selection: SelectionSource, alias?: string): FieldNode {
  return {
    kind: Kind.FIELD,
    name: { kind: Kind.NAME, value: name },
    ...(alias ? { alias: { kind: Kind.NAME, value: alias } } : {}),
    selectionSet: selectionSet(fields(selection)),
  };
}

/**
 * A relation connection as a REST array (`includes[certificates]` on students):
 * `name(first: rows) { nodes { ...selection } }`, presented as the array of its nodes (`relationArrays`).
 */
export function nestRows(name: string, selection: SelectionSource, rows: number): FieldNode {
  return {
    ...nest(name, [nest('nodes', selection)]),
    arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'first' }, value: { kind: Kind.INT, value: String(rows) } }],
  };
}

/** Whether a field is written by `nestRows`: a connection whose REST answer is its nodes. */
export const isRowsField = (node: FieldNode) =>
  node.arguments?.some((argument) => argument.name.value === 'first') === true &&
  node.selectionSet?.selections.length === 1 &&
  node.selectionSet.selections[0]!.kind === Kind.FIELD &&
  node.selectionSet.selections[0]!.name.value === 'nodes';

/**
 * The record(s) of an answer with each `nestRows` field of `selection` replaced by its nodes, the
 * array REST shows. `key` names a field as the answer does (snake_case).
 */
export function relationArrays(records: unknown, selection: Selection, key: (field: FieldNode) => string): unknown {
  const keys = selection.filter(isRowsField).map(key);
  if (keys.length === 0) return records;
  for (const record of Array.isArray(records) ? records : [records]) {
    if (record === null || typeof record !== 'object') continue;
    for (const name of keys) {
      const connection = (record as Record<string, { nodes?: unknown } | null>)[name];
      // Only an answer of the connection: an embedded field under the same key (not included) stays as it is.
      if (connection && !Array.isArray(connection) && 'nodes' in connection) (record as Record<string, unknown>)[name] = connection.nodes;
    }
  }
  return records;
}

/** The scalar fields only: a record without its embedded objects (a course as another record embeds it). */
export const leaves = (selection: SelectionSource): Selection => fields(selection).filter((node) => !node.selectionSet);

/** The selection without the fields answering under `keys` (a student's enrollments need not embed the student). */
export function omit(selection: SelectionSource, ...keys: string[]): Selection {
  const parsed = fields(selection);
  const unknown = keys.filter((key) => !parsed.some((node) => responseKey(node) === key));
  if (unknown.length > 0) throw new Error(`Cannot omit ${unknown.join(', ')}: not in the selection`);
  return parsed.filter((node) => !keys.includes(responseKey(node)));
}

/**
 * `includes[...]`: each included field takes the place of the embedded field answering under the
 * same key (so the JSON keeps its order), or joins at the end when nothing is embedded under it.
 */
export function withIncluded(selection: Selection, included: readonly FieldNode[]): Selection {
  const result = [...selection];
  for (const full of included) {
    const at = result.findIndex((node) => responseKey(node) === responseKey(full));
    if (at >= 0) result[at] = full;
    else result.push(full);
  }
  return result;
}
