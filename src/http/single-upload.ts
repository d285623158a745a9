import busboy from 'busboy';
import type { Request } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { unreadableMultipart } from './multipart-form.js';

/**
 * The one file a public checker receives (a PDF to verify, a badge to unbake): a raw body already
 * read up to the limit by express.raw, or the single file of a multipart form, cut at `maxBytes`.
 * `unsupported` is the 415's message for any other body. What the bytes are is decided later, from the bytes.
 */
export async function singleUpload(req: Request, maxBytes: number, unsupported: string): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (!req.is('multipart/form-data')) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', unsupported);
  let form: busboy.Busboy;
  try {
    // busboy reports its size limit when a file reaches it, so a file of exactly the maximum needs one byte more.
    form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 16, fieldSize: 1024 } });
  } catch {
    throw unreadableMultipart(); // no boundary, or an empty one
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let files = 0;
    const fail = () => reject(unreadableMultipart());
    form.on('file', (_name, stream) => {
      files++;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A truncated form fails the file stream too; unheard, that error would end the process.
      stream.on('error', fail);
      stream.on('limit', () => reject(new DomainError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${maxBytes} bytes.`)));
    });
    form.on('error', fail);
    form.on('close', () =>
      files
        ? resolve(Buffer.concat(chunks))
        : reject(new DomainError('BAD_USER_INPUT', 'The file field is required.', { file: ['The file field is required.'] })),
    );
    req.pipe(form);
  });
}
