/** Identifier spellings shared by the core and the REST layer. */

/** snake_case → camelCase (`created_at` → `createdAt`, `line_2` → `line2`). */
export const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** camelCase → snake_case (`createdAt` → `created_at`); rest-compat/case.ts memoises it for the REST layer. */
export const snakeCase = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A type name as a field name (`ModuleGroup` → `moduleGroup`). */
export const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);
