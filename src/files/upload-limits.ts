import { DomainError } from '../errors/domain-error.js';
import { ACCEPTED_TYPES } from './file-type.js';

/** The 413s of an upload; the same words whichever transport noticed the excess first. */
export function fileTooLarge(maxBytes: number): DomainError {
  const limit = maxBytes % 1024 === 0 ? `${maxBytes / 1024} kilobytes` : `${maxBytes} bytes`;
  return new DomainError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${limit}.`);
}

export function tooManyFiles(maxFiles: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `No more than ${maxFiles} files may be uploaded at once.`);
}

export function unsupportedType(filename: string): DomainError {
  return new DomainError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The file ${JSON.stringify(filename)} must be a file of type: ${ACCEPTED_TYPES.map((type) => type.extension).join(', ')}.`,
  );
}
