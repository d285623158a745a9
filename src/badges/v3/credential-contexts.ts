/** JSON-LD context entries a credential may carry in all; ours have three or four. */
export const MAX_CONTEXT_ENTRIES = 16;

/**
 * Why a credential's `@context`s are refused before a worker canonicalises it, or null. Every entry
 * (the top-level list, scoped contexts inside objects and inside inline contexts) is processed in
 * turn by JSON-LD, and a list repeating one bundled URL a thousand times costs seconds of a badge
 * worker within the 64 KiB body limit while no credential of any issuer needs more than a handful.
 */
export function contextProblem(credential: Record<string, unknown>): string | null {
  const urls = [credential['@context']].flat().filter((entry) => typeof entry === 'string');
  if (new Set(urls).size < urls.length) return 'The credential lists an @context more than once.';
  if (contextEntries(credential) > MAX_CONTEXT_ENTRIES) return `The credential may not have more than ${MAX_CONTEXT_ENTRIES} @context entries.`;
  return null;
}

/** Every `@context` entry in the document, counted without recursion (the body's depth is bounded, its breadth is not). */
function contextEntries(document: unknown): number {
  let count = 0;
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) pending.push(...value);
    else if (value && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        if (key === '@context') count += Array.isArray(member) ? member.length : 1;
        if (member && typeof member === 'object') pending.push(member);
      }
    }
    if (count > MAX_CONTEXT_ENTRIES) break;
  }
  return count;
}
