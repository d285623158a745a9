/** "dateOfBirth" → "date of birth", as Laravel names attributes in its messages. */
export function humanize(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[._]/g, ' ')
    .toLowerCase();
}
