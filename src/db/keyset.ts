/**
 * Keyset paging as SQL: the rows after (or before) a key in a list ordered by one column, then uuid
 * ascending. NULLs count as the largest values, as PostgreSQL orders them by default (last when
 * ascending, first when descending), so the order and these conditions agree in both directions.
 */

/** A row's place: its sort column's value (absent when the list is in uuid order) and its uuid. */
export interface KeyBound {
  value?: unknown;
  uuid: string;
}

export interface KeysetOrder {
  /** The sort column as SQL (`t."created_at"`); undefined for uuid order. */
  column: string | undefined;
  descending: boolean;
  /** Read from the list's end (Relay `last`): every direction flipped. */
  reverse: boolean;
}

/** The `order by` terms of a list: its column, then uuid; reversed for reading the list from its end. */
export function keysetOrderTerms(order: KeysetOrder, uuid: string): { expression: string; direction: 'asc' | 'desc' }[] {
  const direction = (descending: boolean): 'asc' | 'desc' => (descending !== order.reverse ? 'desc' : 'asc');
  return [...(order.column ? [{ expression: order.column, direction: direction(order.descending) }] : []), { expression: uuid, direction: direction(false) }];
}

/** `order by` of a list as SQL (see `keysetOrderTerms`). */
export const keysetOrderBy = (order: KeysetOrder, uuid: string) =>
  keysetOrderTerms(order, uuid)
    .map(({ expression, direction }) => `${expression} ${direction}`)
    .join(', ');

/**
 * The condition that keeps rows strictly after (`side` after) or before `bound` in the list's order.
 * `parameter` binds a value and returns its placeholder (called once per placeholder written).
 */
export function keysetCondition(
  order: Pick<KeysetOrder, 'column' | 'descending'>,
  uuid: string,
  bound: KeyBound,
  side: 'after' | 'before',
  parameter: (value: unknown) => string,
): string {
  const uuidOp = side === 'after' ? '>' : '<';
  const column = order.column;
  if (!column) return `${uuid} ${uuidOp} ${parameter(bound.uuid)}`;
  // Towards larger values of the column: after in an ascending list, before in a descending one.
  const larger = order.descending === (side === 'before');
  if (bound.value === null || bound.value === undefined) {
    return larger
      ? `(${column} is null and ${uuid} ${uuidOp} ${parameter(bound.uuid)})`
      : `(${column} is not null or ${uuid} ${uuidOp} ${parameter(bound.uuid)})`;
  }
  const tie = () => `${uuid} ${uuidOp} ${parameter(bound.uuid)}`;
  const value = () => parameter(bound.value);
  // Placeholders are made in the order they are written ('?' placeholders bind by position).
  // The non-strict bound first, so an index on the column narrows the scan; NULLs sit beyond every value.
  if (larger) return `(${column} is null or (${column} >= ${value()} and (${column} > ${value()} or ${tie()})))`;
  return `(${column} <= ${value()} and (${column} < ${value()} or ${tie()}))`;
}
