export interface UploadBudgetLimits {
  /** Bytes one tenant's uploads may hold in flight (0 = unlimited). */
  perTenantBytes: number;
  /** Bytes every tenant's uploads together may hold in flight (0 = unlimited). */
  totalBytes: number;
  /** How long an upload waits for room before it is refused. */
  queueWaitMs: number;
}

/** Why an upload got no room in time: its tenant's budget or the process's was full. */
export type FullBudget = 'tenant' | 'total';

interface Waiter {
  tenant: string;
  bytes: number;
  admit(): void;
}

/**
 * The bytes of multipart uploads in flight in this process, per tenant and in all. An upload reserves
 * what its body declares before its first byte is read and gives it back when its response closes; one
 * that does not fit waits its turn, briefly, rather than being refused at once. Waiters are admitted in
 * arrival order, each as soon as it fits, so a large upload of one tenant never holds up the small ones
 * of another; the queue wait bounds how long a large one can be passed over.
 */
export class UploadBudget {
  private readonly byTenant = new Map<string, number>();
  private total = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limits: UploadBudgetLimits) {}

  /**
   * What a body of `declared` bytes reserves; a body of unknown length (chunked) counts as the largest
   * one allowed. Never more than the smaller budget, so that any upload fits once it is alone.
   */
  reservation(declared: number | undefined): number {
    const budgets = [this.limits.perTenantBytes, this.limits.totalBytes].filter((bytes) => bytes > 0);
    if (budgets.length === 0) return declared ?? 0;
    const largest = Math.min(...budgets);
    return Math.min(declared ?? largest, largest);
  }

  /** Bytes `tenant`'s uploads hold now. */
  heldBy(tenant: string): number {
    return this.byTenant.get(tenant) ?? 0;
  }

  /**
   * Reserves `bytes` for `tenant` once they fit, waiting up to the queue wait (or until `abandoned`
   * fires); resolves with the release, or with the budget that stayed full.
   */
  reserve(tenant: string, bytes: number, abandoned: AbortSignal): Promise<{ release: () => void } | { full: FullBudget }> {
    if (this.fits(tenant, bytes)) return Promise.resolve({ release: this.take(tenant, bytes) });
    return new Promise((resolve) => {
      const giveUp = () => {
        clearTimeout(timer);
        abandoned.removeEventListener('abort', giveUp);
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve({ full: this.overTenantBudget(tenant, bytes) ? 'tenant' : 'total' });
      };
      const waiter: Waiter = {
        tenant,
        bytes,
        admit: () => {
          clearTimeout(timer);
          abandoned.removeEventListener('abort', giveUp);
          resolve({ release: this.take(tenant, bytes) });
        },
      };
      const timer = setTimeout(giveUp, this.limits.queueWaitMs);
      abandoned.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(waiter);
    });
  }

  private overTenantBudget(tenant: string, bytes: number): boolean {
    return this.limits.perTenantBytes > 0 && this.heldBy(tenant) + bytes > this.limits.perTenantBytes;
  }

  private fits(tenant: string, bytes: number): boolean {
    return !this.overTenantBudget(tenant, bytes) && !(this.limits.totalBytes > 0 && this.total + bytes > this.limits.totalBytes);
  }

  /** Holds `bytes` for `tenant`; the returned release gives them back once, and lets waiters in. */
  private take(tenant: string, bytes: number): () => void {
    this.byTenant.set(tenant, this.heldBy(tenant) + bytes);
    this.total += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.heldBy(tenant) - bytes;
      if (left > 0) this.byTenant.set(tenant, left);
      else this.byTenant.delete(tenant);
      this.total -= bytes;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    for (let index = 0; index < this.waiting.length;) {
      const waiter = this.waiting[index]!;
      if (!this.fits(waiter.tenant, waiter.bytes)) {
        index++;
        continue;
      }
      this.waiting.splice(index, 1);
      waiter.admit();
    }
  }
}
