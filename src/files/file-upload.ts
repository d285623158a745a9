import type { ErrorRequestHandler } from 'express';
import type { FileUpload } from 'graphql-upload-ts';
import { DomainError } from '../errors/domain-error.js';
import type { IncomingFile } from './file-intake.js';
import type { FileSettings } from './file-runtime.js';
import { fileTooLarge, tooManyFiles } from './upload-limits.js';

/**
 * graphql-upload-ts reports its failures as http-errors (413 over a limit, 400 for a malformed
 * multipart request, 499 for a client that went away); the core speaks DomainErrors.
 */
export function uploadFailure(error: unknown, settings: FileSettings): unknown {
  if (error instanceof DomainError) return error;
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

async function* translated(content: AsyncIterable<Uint8Array>, settings: FileSettings): AsyncIterable<Uint8Array> {
  try {
    yield* content;
  } catch (error) {
    throw uploadFailure(error, settings);
  }
}

/** An `Upload` scalar value as the upload service reads it, opened only when the service gets to it. */
export function incomingUpload(upload: Promise<FileUpload>, settings: FileSettings): () => Promise<IncomingFile> {
  return async () => {
    try {
      const file = await upload;
      return { filename: file.filename, content: translated(file.createReadStream({ highWaterMark: 256 * 1024 }), settings) };
    } catch (error) {
      throw uploadFailure(error, settings);
    }
  };
}
