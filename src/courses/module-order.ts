/**
 * The display order of a course's modules: grouped ones first, groups by their order (none last) and
 * then name, modules by position within the group. CourseModule's DISPLAY_RANK is this rule in SQL.
 * Pure, so the transcript (on a document worker) sorts with it too.
 */

export interface OrderedGroup {
  order?: number | null;
  name: string;
}

export interface OrderedAttachment {
  group: OrderedGroup | null;
  order?: number | null;
}

/** Positions ascending; a missing position sorts last. */
export function comparePositions(a: number | null | undefined, b: number | null | undefined): number {
  const [left, right] = [a ?? Number.POSITIVE_INFINITY, b ?? Number.POSITIVE_INFINITY];
  return left < right ? -1 : left > right ? 1 : 0;
}

/** By order (none last), then name by code unit, as SQL's `collate "C"` compares. */
export function compareGroups(a: OrderedGroup, b: OrderedGroup): number {
  return comparePositions(a.order, b.order) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Grouped before ungrouped, by group, then by position. Sorting with it keeps the input order of ties. */
export function compareAttachments(a: OrderedAttachment, b: OrderedAttachment): number {
  if (!a.group || !b.group) return Number(!a.group) - Number(!b.group) || comparePositions(a.order, b.order);
  return compareGroups(a.group, b.group) || comparePositions(a.order, b.order);
}
