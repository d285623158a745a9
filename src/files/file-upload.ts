import { finished } from 'node:stream/promises';
import { DomainError } from '../errors/domain-error.js';
import type { IncomingFile } from './file-intake.js';
import type { SpooledUpload } from './file-spool.js';

/**
 * An `Upload` scalar value as the upload service reads it: a part both transports spooled
 * (src/http/multipart-form.ts). It resolves once every byte of the part is spooled, so the service
 * opens its transaction after the client is done sending.
 */
export function incomingUpload(upload: Promise<SpooledUpload>): () => Promise<IncomingFile> {
  return async () => {
    const { filename, spool } = await upload;
    // Destroyed before its last byte: the client went away, or the request failed.
    await finished(spool, { readable: false }).catch(() => {
      throw new DomainError('BAD_REQUEST', 'The upload was interrupted.');
    });
    return spool.incoming(filename);
  };
}
