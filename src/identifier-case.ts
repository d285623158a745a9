/** Identifier spellings shared by the core and the REST layer. */

/** snake_case → camelCase (`created_at` → `createdAt`, `line_2` → `line2`). */
export const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A type name as a field name (`ModuleGroup` → `moduleGroup`). */
export const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);
