import { compareAttachments, compareGroups, comparePositions } from '../src/courses/module-order.js';

describe('module display order', () => {
  it('puts positions in ascending order and missing ones last', () => {
    expect([3, null, 1, undefined, 2].sort(comparePositions)).toEqual([1, 2, 3, null, undefined]);
  });

  it('orders groups by order, groups without one last, and equal orders by name as code units', () => {
    const groups = [
      { name: 'Unordered', order: null },
      { name: 'b', order: 1 },
      { name: 'Á', order: 1 },
      { name: 'B', order: 1 },
      { name: 'First', order: 0 },
    ];
    expect([...groups].sort(compareGroups).map((group) => group.name)).toEqual(['First', 'B', 'b', 'Á', 'Unordered']);
  });

  it('puts grouped modules first, by group then position, and ungrouped ones after, by position', () => {
    const core = { name: 'Core', order: 1 };
    const electives = { name: 'Electives', order: 2 };
    const rows = [
      { id: 'loose-2', group: null, order: 2 },
      { id: 'elective-1', group: electives, order: 1 },
      { id: 'loose-1', group: null, order: 1 },
      { id: 'core-2', group: core, order: 2 },
      { id: 'core-1', group: core, order: 1 },
    ];
    expect([...rows].sort(compareAttachments).map((row) => row.id)).toEqual(['core-1', 'core-2', 'elective-1', 'loose-1', 'loose-2']);
  });

  it('keeps the input order of attachments that tie', () => {
    const group = { name: 'Core', order: 1 };
    const rows = [
      { id: 'z', group, order: 1 },
      { id: 'a', group: { ...group }, order: 1 },
    ];
    expect([...rows].sort(compareAttachments).map((row) => row.id)).toEqual(['z', 'a']);
  });
});
