import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields the operation selects on the object being resolved, or with `path` on an
 * object below it (`['nodes']` and `['edges', 'node']` for a connection's nodes), through fragments
 * and inline fragments. `@skip`/`@include` are not evaluated: a conditional field counts as selected,
 * which only ever reads a little more than needed.
 */
export function selectedFieldNames(info: GraphQLResolveInfo, ...paths: string[][]): Set<string> {
  const names = new Set<string>();
  const visit = (set: SelectionSetNode | undefined, path: string[]): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, path);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) visit(info.fragments[selection.name.value]?.selectionSet, path);
      else if (path.length === 0) names.add(selection.name.value);
      else if (selection.name.value === path[0]) visit(selection.selectionSet, path.slice(1));
    }
  };
  for (const node of info.fieldNodes) for (const path of paths.length > 0 ? paths : [[]]) visit(node.selectionSet, path);
  return names;
}

/** The fields selected on a connection's nodes, whether reached through `nodes` or `edges { node }`. */
export const selectedNodeFieldNames = (info: GraphQLResolveInfo): Set<string> => selectedFieldNames(info, ['nodes'], ['edges', 'node']);
