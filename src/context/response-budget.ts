import { responseTooLarge } from '../errors/domain-error.js';

/**
 * How much JSON is written between two turns of the event loop (src/http/json-text.ts): about a
 * millisecond of work, so an answer of several MB never holds the loop for long.
 */
export const JSON_SLICE_BYTES = 256 * 1024;

/**
 * The bytes one answer may still take (RESPONSE_MAX_BYTES), spent by the fields that can be large
 * (free JSON) before they are read, so an answer over the budget is refused before it is loaded or
 * built. The serialiser (src/http/json-text.ts) holds the whole answer to the same limit.
 */
export class ResponseBudget {
  /** Bytes charged so far. */
  spent = 0;

  constructor(readonly maxBytes: number) {}

  /** Counts `bytes` of the answer (0: checks it); RESPONSE_TOO_LARGE once the answer would pass the budget, and on every charge after. */
  charge(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.maxBytes) throw responseTooLarge(this.maxBytes);
  }
}
