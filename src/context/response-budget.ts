import { setImmediate as nextTurn } from 'node:timers/promises';
import { responseTooLarge } from '../errors/domain-error.js';

/**
 * How much JSON is parsed or written between two turns of the event loop: about a millisecond of
 * JSON.parse / JSON.stringify, so an answer of several MB never holds the loop for long.
 */
export const JSON_SLICE_BYTES = 256 * 1024;

/** Counts JSON work and lets the event loop turn after each `JSON_SLICE_BYTES` of it. */
export class JsonPacer {
  private sinceTurn = 0;

  async done(bytes: number): Promise<void> {
    this.sinceTurn += bytes;
    if (this.sinceTurn < JSON_SLICE_BYTES) return;
    this.sinceTurn = 0;
    await nextTurn();
  }
}

/**
 * The bytes one answer may still take (RESPONSE_MAX_BYTES), spent by the fields that can be large
 * (free JSON) before they are read, so an answer over the budget is refused before it is loaded or
 * built. The serialiser (src/http/json-text.ts) holds the whole answer to the same limit.
 */
export class ResponseBudget {
  private spent = 0;

  constructor(readonly maxBytes: number) {}

  /** Counts `bytes` of the answer (0: checks it); RESPONSE_TOO_LARGE once the answer would pass the budget, and on every charge after. */
  charge(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.maxBytes) throw responseTooLarge(this.maxBytes);
  }
}
