/**
 * The OAuth-form errors of the wallet endpoints (RFC 6749 §5.2, OpenID4VCI 1.0 §6.3 and §8.3.1.2):
 * `{"error", "error_description"}`, 400 unless the access token is at fault (401).
 */
export type WalletErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_token'
  | 'invalid_credential_request'
  | 'unknown_credential_configuration'
  | 'invalid_proof'
  | 'invalid_nonce';

export class WalletError extends Error {
  constructor(
    readonly error: WalletErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'WalletError';
  }

  get status(): number {
    return this.error === 'invalid_token' ? 401 : 400;
  }

  get body() {
    return { error: this.error, error_description: this.description };
  }
}
