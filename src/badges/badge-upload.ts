import busboy from 'busboy';
import type { Request } from 'express';
import { DomainError } from '../errors/domain-error.js';

/** The media types a baked badge may be sent as, raw in the body. */
export const BAKED_IMAGE_TYPES = ['image/png', 'image/svg+xml', 'application/octet-stream'];

/**
 * The uploaded image: a raw body (already read, up to the limit, by express.raw) or the one file of a
 * multipart form, cut at `maxBytes`. Its type is decided from the bytes later, never from the claim.
 */
export async function uploadedImage(req: Request, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (!req.is('multipart/form-data'))
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the baked badge as image/png, image/svg+xml or a multipart form file.');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let files = 0;
    // busboy reports its size limit when a file reaches it, so a file of exactly the maximum needs one byte more.
    const form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 16, fieldSize: 1024 } });
    const unreadable = () => reject(new DomainError('BAD_REQUEST', 'The multipart body could not be read.'));
    form.on('file', (_name, stream) => {
      files++;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', unreadable);
      stream.on('limit', () => reject(new DomainError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${maxBytes} bytes.`)));
    });
    form.on('error', unreadable);
    form.on('close', () =>
      files
        ? resolve(Buffer.concat(chunks))
        : reject(new DomainError('BAD_USER_INPUT', 'The file field is required.', { file: ['The file field is required.'] })),
    );
    req.pipe(form);
  });
}
