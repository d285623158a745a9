import { DomainError, responseTooLarge } from '../errors/domain-error.js';
import type { InFlightLimit } from '../rate-limits/in-flight-limit.js';

/**
 * How much JSON is written between two turns of the event loop (src/http/json-text.ts): about a
 * millisecond of work, so an answer of several MB never holds the loop for long.
 */
export const JSON_SLICE_BYTES = 256 * 1024;

export const LARGE_ANSWERS_BUSY = "This tenant's large answers are being read; try again shortly.";
/** How long an answer waits for the tenant's other large answers. */
export const LARGE_ANSWER_WAIT_MS = 10_000;

/**
 * The bytes one answer may still take (RESPONSE_MAX_BYTES), spent by the fields that can be large
 * (free JSON) before they are read, so an answer over the budget is refused before it is loaded or
 * built. The serialiser (src/http/json-text.ts) holds the whole answer to the same limit.
 * With `inFlight` (RESPONSE_BYTES_IN_FLIGHT_PER_TENANT), what was charged is read only when it fits
 * the bytes the tenant's answers are reading and writing at once (`admit`; 503 + Retry-After after
 * waiting LARGE_ANSWER_WAIT_MS), and given back when the answer has gone (`finish`). Without it a burst
 * of 24 lists of 6 MB templates was read and written all at once, taking the database pool and both
 * cores from other tenants for two seconds (docs/benchmarks.md, Neighbours).
 */
export class ResponseBudget {
  /** Bytes charged so far. */
  spent = 0;
  /** The error that refused this answer (too large, over the tenant's byte rate, busy), once one did. */
  refusal: Error | undefined;
  private asked = 0;
  private held = 0;
  private finished = false;
  private chargeTenant: (bytes: number) => Promise<void> = async () => undefined;

  constructor(
    readonly maxBytes: number,
    private readonly inFlight?: { gate: InFlightLimit; tenant: string },
  ) {}

  /** Counts `bytes` of the answer (0: checks it); RESPONSE_TOO_LARGE once the answer would pass the budget, and on every charge after. */
  charge(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.maxBytes) throw this.refuse(responseTooLarge(this.maxBytes));
  }

  private refuse(error: unknown): unknown {
    if (error instanceof Error) this.refusal ??= error;
    return error;
  }

  /** How the bytes an answer is admitted to read are charged to its tenant's byte rate (throws when overdrawn). */
  chargeTenantWith(charge: (bytes: number) => Promise<void>): void {
    this.chargeTenant = charge;
  }

  /**
   * Waits until the bytes charged since the last call fit the tenant's bytes in flight, then charges
   * them to the tenant's byte rate, which the answers this one waited for may have overdrawn.
   */
  async admit(): Promise<void> {
    const bytes = this.spent - this.asked;
    if (bytes <= 0) return;
    this.asked += bytes;
    if (this.inFlight) {
      const { gate, tenant } = this.inFlight;
      if (!(await gate.acquire(tenant, bytes))) {
        this.asked -= bytes;
        throw this.refuse(new DomainError('SERVICE_UNAVAILABLE', LARGE_ANSWERS_BUSY));
      }
      if (this.finished) gate.release(tenant, bytes);
      else this.held += bytes;
    }
    try {
      await this.chargeTenant(bytes);
    } catch (error) {
      throw this.refuse(error);
    }
  }

  /** The answer has gone (or its client left): its bytes in flight are given back. */
  finish(): void {
    this.finished = true;
    if (this.inFlight && this.held > 0) this.inFlight.gate.release(this.inFlight.tenant, this.held);
    this.held = 0;
  }
}
