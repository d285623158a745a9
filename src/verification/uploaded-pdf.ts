import busboy from 'busboy';
import type { Request } from 'express';
import { DomainError } from '../errors/domain-error.js';

/** The uploaded PDF, as a raw `application/pdf` body or the one file of a multipart form. */
export async function uploadedPdf(req: Request, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (!req.is('multipart/form-data')) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the PDF as application/pdf or as a multipart form file.');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let files = 0;
    // busboy reports its size limit when a file reaches it, so a file of exactly the maximum needs one byte more.
    const form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 16, fieldSize: 1024 } });
    form.on('file', (_name, stream) => {
      files++;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A truncated form fails the file stream too; unheard, that error would end the process.
      stream.on('error', () => reject(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
      stream.on('limit', () => reject(new DomainError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${maxBytes} bytes.`)));
    });
    form.on('error', () => reject(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
    form.on('close', () =>
      files
        ? resolve(Buffer.concat(chunks))
        : reject(new DomainError('BAD_USER_INPUT', 'The file field is required.', { file: ['The file field is required.'] })),
    );
    req.pipe(form);
  });
}
