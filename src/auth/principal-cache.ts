import type { Principal } from './token.service.js';

/** How long an entry may answer for its token without a lookup (revocations evict sooner, see below). */
export const PRINCIPAL_CACHE_MS = 60_000;

/** The caches of this process, so a revocation made here evicts at once, before its NOTIFY comes back. */
const caches = new Set<PrincipalCache>();

/**
 * Principals of tokens this process resolved recently, by token hash. Revoking a token or a client
 * evicts its entries on every process: at once on the process that revoked (`forgetClientHere`),
 * through the database's NOTIFY (auth/principal-revocations.ts) on the others. Entries are served
 * only while that NOTIFY channel is heard: while it is not, every request looks its token up.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();
  private listening = false;
  /** Bumped by every eviction: a lookup that started before one does not store what it read. */
  private generation = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly entryMs = PRINCIPAL_CACHE_MS,
  ) {}

  get(tokenHash: string): Principal | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(tokenHash);
    if (entry && entry.expiresAt > Date.now()) return entry.principal;
    if (entry) this.entries.delete(tokenHash);
    return undefined;
  }

  /** A token for `get` to answer from; `readAt` is `startLookup()`'s value from before the lookup ran. */
  set(tokenHash: string, principal: Principal, tokenExpiresAt: Date, readAt: number): void {
    if (!this.listening || readAt !== this.generation) return;
    this.entries.delete(tokenHash);
    // Oldest first out: a flood of distinct valid tokens cannot grow the process.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { principal, expiresAt: Math.min(tokenExpiresAt.getTime(), Date.now() + this.entryMs) });
  }

  startLookup(): number {
    return this.generation;
  }

  /** Every entry of this client's tokens (`undefined`: every entry). */
  forget(clientId?: string): void {
    this.generation++;
    if (clientId === undefined) return this.entries.clear();
    for (const [tokenHash, { principal }] of this.entries) if (principal.clientId === clientId) this.entries.delete(tokenHash);
  }

  /** Whether revocations are heard; entering or leaving that state drops every entry (some may have been missed). */
  setListening(listening: boolean): void {
    this.forget();
    this.listening = listening;
    if (listening) caches.add(this);
    else caches.delete(this);
  }
}

/** A revocation committed by this process: every cache here forgets the client's tokens now. */
export function forgetClientHere(clientId: string): void {
  for (const cache of caches) cache.forget(clientId);
}
