/**
 * The placeholders a template's text elements may name (`{{student.name}}`, `{{issued_at|date}}`,
 * `{{attributes.<key>}}`), and their substitution. One home for the names: validation
 * (template-layout.ts) and rendering (layout-values.ts) both read them from here.
 */

/** Names a placeholder may take, with the filters each accepts. */
const NAMES: Record<string, readonly Filter[]> = {
  'student.name': [],
  'course.name': [],
  'course.workload': [],
  'institution.name': [],
  issued_at: ['date'],
  grade: [],
  'certificate.uuid': [],
  'enrollment.completed_at': ['date'],
};

export const PLACEHOLDER_NAMES = Object.keys(NAMES);

type Filter = 'date';

const ATTRIBUTE = /^attributes\.[A-Za-z0-9_-]{1,64}$/;
const TOKEN = /\{\{\s*([^{}|\s]+)\s*(?:\|\s*([a-z]+)\s*)?\}\}/g;

/** Why a placeholder of `text` cannot be filled, one message each; empty when all are known. */
export function placeholderErrors(text: string): string[] {
  const errors: string[] = [];
  for (const [, name, filter] of text.matchAll(TOKEN)) {
    const filters = ATTRIBUTE.test(name!) ? [] : NAMES[name!];
    if (!filters) errors.push(`The placeholder {{${name}}} is unknown; use ${PLACEHOLDER_NAMES.join(', ')} or attributes.<key>.`);
    else if (filter && !filters.includes(filter as Filter)) errors.push(`The placeholder {{${name}}} takes no "${filter}" filter.`);
  }
  return errors;
}

/** The data placeholders are filled from; a date stays a date until its filter formats it. */
export interface PlaceholderValues {
  values: Record<string, string | number | Date | null | undefined>;
  attributes: Record<string, unknown>;
  /** BCP 47 tag the `date` filter formats in. */
  locale: string;
}

/** `text` with every placeholder replaced; a missing value prints as nothing. */
export function fillPlaceholders(text: string, { values, attributes, locale }: PlaceholderValues): string {
  return text.replace(TOKEN, (_token, name: string, filter?: string) => {
    const value = name.startsWith('attributes.') ? attributes[name.slice('attributes.'.length)] : values[name];
    if (value === null || value === undefined) return '';
    if (value instanceof Date || filter === 'date') return formatDate(value, locale);
    return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  });
}

function formatDate(value: unknown, locale: string): string {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) return typeof value === 'string' ? value : '';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/** The `<key>`s of the `{{attributes.<key>}}` placeholders of `text`. */
export function attributeKeys(text: string): string[] {
  return [...text.matchAll(TOKEN)].flatMap(([, name]) => (ATTRIBUTE.test(name!) ? [name!.slice('attributes.'.length)] : []));
}
