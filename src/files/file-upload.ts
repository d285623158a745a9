import { finished } from 'node:stream/promises';
import type { ErrorRequestHandler } from 'express';
import type { FileUpload } from 'graphql-upload-ts';
import { DomainError } from '../errors/domain-error.js';
import type { IncomingFile } from './file-intake.js';
import type { FileSettings } from './file-runtime.js';
import type { SpooledUpload } from './file-spool.js';
import { fileTooLarge, tooManyFiles } from './upload-limits.js';

/**
 * graphql-upload-ts reports its failures as http-errors (413 over a limit, 400 for a malformed
 * multipart request, 499 for a client that went away); the core speaks DomainErrors.
 */
export function uploadFailure(error: unknown, settings: FileSettings): unknown {
  if (error instanceof DomainError) return error;
  if ((error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return new DomainError('BAD_REQUEST', 'The upload was interrupted.');
  const { status, message = '' } = error as { status?: number; message?: string };
  if (status === 413) {
    if (/max file uploads exceeded/.test(message)) return tooManyFiles(settings.maxFiles);
    if (/^File truncated/.test(message)) return fileTooLarge(settings.maxFileBytes);
    return new DomainError('PAYLOAD_TOO_LARGE', message);
  }
  if (typeof status === 'number' && status >= 400 && status < 500) return new DomainError('BAD_REQUEST', message);
  return error;
}

/** Express error middleware for /graphql, right after graphql-upload-ts's: its errors as DomainErrors. */
export function graphqlUploadErrors(settings: FileSettings): ErrorRequestHandler {
  return (error, _req, _res, next) => next(uploadFailure(error, settings));
}

/** The spooled content, opened only when read: a file never read leaves no stream holding its temporary file. */
async function* contentOf(file: FileUpload, settings: FileSettings): AsyncIterable<Uint8Array> {
  try {
    yield* file.createReadStream({ highWaterMark: 256 * 1024 });
  } catch (error) {
    throw uploadFailure(error, settings);
  }
}

const isSpooled = (file: FileUpload | SpooledUpload): file is SpooledUpload => 'spool' in file;

/**
 * An `Upload` scalar value as the upload service reads it. It resolves only once the transport has
 * spooled every byte of the part to its temporary file (REST parts already have; GraphQL parts may
 * still be arriving), so the service opens its transaction after the client is done sending.
 */
export function incomingUpload(upload: Promise<FileUpload | SpooledUpload>, settings: FileSettings): () => Promise<IncomingFile> {
  return async () => {
    try {
      const file = await upload;
      if (isSpooled(file)) {
        await finished(file.spool, { readable: false });
        return file.spool.incoming(file.filename);
      }
      await finished(file.capacitor, { readable: false });
      return { filename: file.filename, content: contentOf(file, settings) };
    } catch (error) {
      throw uploadFailure(error, settings);
    }
  };
}
