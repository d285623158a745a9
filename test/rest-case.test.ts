import { renameKeys } from '../rest-compat/case.js';
import { toCamel } from '../src/identifier-case.js';

describe('renameKeys', () => {
  it('renames the keys of JSON objects at every depth and passes class instances on untouched', () => {
    class Part {
      held_bytes = Buffer.alloc(1024 * 1024);
    }
    const part = new Part();
    const when = new Date(0);
    const body = { course_uuid: 'c', module_list: [{ is_default: true, nested_value: { deep_key: 1 } }], upload_part: part, starts_at: when };
    const renamed = renameKeys(body, toCamel) as Record<string, unknown>;
    expect(renamed).toEqual({ courseUuid: 'c', moduleList: [{ isDefault: true, nestedValue: { deepKey: 1 } }], uploadPart: part, startsAt: when });
    expect(renamed.uploadPart).toBe(part);
    expect(renamed.startsAt).toBe(when);
  });
});
