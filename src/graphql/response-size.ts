import { responseTooLarge } from '../errors/domain-error.js';

export const RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE';

/** The whole GraphQL answer to an operation whose answer would pass the budget (RESPONSE_MAX_BYTES). */
export function tooLargeBody(maxBytes: number): string {
  return JSON.stringify({ errors: [{ message: responseTooLarge(maxBytes).message, extensions: { code: RESPONSE_TOO_LARGE } }] });
}
