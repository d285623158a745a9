/** Why a document or signing identity was refused; every reason is the caller's input, so a 422. */
export type DocumentErrorReason =
  | 'PDF_ENCRYPTED'
  | 'PDF_UNREADABLE'
  | 'PDF_WITHOUT_PAGES'
  | 'PDF_CERTIFIED_NO_CHANGES'
  | 'IDENTITY_WRONG_PASSPHRASE'
  | 'IDENTITY_UNREADABLE'
  | 'IDENTITY_INCOMPLETE'
  | 'IDENTITY_UNSUPPORTED'
  | 'TRANSCRIPT_INVALID'
  | 'FONT_UNREADABLE';

export class DocumentError extends Error {
  constructor(
    readonly reason: DocumentErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DocumentError';
  }
}
