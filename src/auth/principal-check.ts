import type { StatementGuard } from '../db/statement-guard.js';
import { DomainError } from '../errors/domain-error.js';
import { stillActiveSql, type Principal } from './token.service.js';

const unauthenticated = () => new DomainError('UNAUTHENTICATED', 'Unauthenticated.');

/**
 * A request's principal taken from the process's cache (auth/principal-cache.ts), still to be proven
 * for this request. The request's first page statement proves it in the same statement (a guard, see
 * db/page-statement.ts); anything that answers, writes or runs a mutation first calls `confirm`, which
 * proves it by the lookup when no statement has. Until then the request only reads.
 */
export class PrincipalCheck implements StatementGuard {
  private state: 'pending' | 'active' | 'refused' = 'pending';
  /** A statement carries the proof already: the request's other reads need not (they batch as usual). */
  private carried = false;
  private lookup?: Promise<void>;

  constructor(
    private readonly tokenHash: string,
    readonly principal: Principal,
    /** The token's principal by the separate lookup (null when the token is no longer active). */
    private readonly lookUp: () => Promise<Principal | null>,
    /** Told once when the token turns out inactive (the cache forgets it). */
    private readonly onRefused: () => void,
  ) {}

  get pending(): boolean {
    return this.state === 'pending' && !this.carried;
  }

  condition(first: number): { sql: string; values: unknown[] } {
    this.carried = true;
    return stillActiveSql(this.tokenHash, this.principal, first);
  }

  prove(holds: boolean): void {
    this.settle(holds);
    if (this.state === 'refused') throw unauthenticated();
  }

  /**
   * Resolves once the principal is proven active for this request; rejects with UNAUTHENTICATED when
   * the token is no longer active (and with the database's error when the lookup itself fails).
   */
  async confirm(): Promise<void> {
    if (this.state === 'pending') {
      this.lookup ??= this.lookUp().then((found) => this.settle(found !== null && samePrincipal(found, this.principal)));
      await this.lookup;
    }
    if (this.state === 'refused') throw unauthenticated();
  }

  private settle(holds: boolean): void {
    if (this.state !== 'pending') return;
    this.state = holds ? 'active' : 'refused';
    if (!holds) this.onRefused();
  }
}

const samePrincipal = (a: Principal, b: Principal) =>
  a.clientId === b.clientId && a.tenant.uuid === b.tenant.uuid && a.tenant.identifier === b.tenant.identifier;
