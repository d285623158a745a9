import type { Principal } from './token.service.js';

/**
 * Principals of tokens this process authenticated recently, by token hash. An entry only says whom
 * a token spoke for: every request still proves the token active (auth/principal-check.ts), so
 * revoking it takes effect on the next request; the cache only saves the separate lookup.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(tokenHash: string): Principal | undefined {
    const entry = this.entries.get(tokenHash);
    if (entry && entry.expiresAt > Date.now()) return entry.principal;
    if (entry) this.entries.delete(tokenHash);
    return undefined;
  }

  set(tokenHash: string, principal: Principal, expiresAt: Date): void {
    this.entries.delete(tokenHash);
    // Oldest first out: a flood of distinct valid tokens cannot grow the process.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { principal, expiresAt: expiresAt.getTime() });
  }

  delete(tokenHash: string): void {
    this.entries.delete(tokenHash);
  }
}
