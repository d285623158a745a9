import busboy from 'busboy';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type FileUpload, Upload } from 'graphql-upload-ts';
import { DomainError } from '../src/errors/domain-error.js';
import type { BlockPool } from '../src/files/block-pool.js';
import { FileSpool, type SpooledUpload } from '../src/files/file-spool.js';
import { fileTooLarge, tooManyFiles } from '../src/files/upload-limits.js';
import { MultipartFlow } from './multipart-flow.js';

export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
  /** Bytes of one text field. */
  maxFieldBytes: number;
}

export interface MultipartOptions extends MultipartLimits {
  /** Where file parts keep their first blocks (FileRuntime.uploadBlocks). */
  blocks: BlockPool;
}

const MAX_FIELDS = 100;

/** `files[]` and `files[0]` collect into `files`, as PHP/Laravel read form fields. */
function collect(body: Record<string, unknown>, field: string, value: unknown): void {
  const match = /^(.*?)\[\d*\]$/.exec(field);
  if (!match) {
    body[field] = value;
    return;
  }
  const name = match[1]!;
  const list = Array.isArray(body[name]) ? (body[name] as unknown[]) : (body[name] = []);
  (list as unknown[]).push(value);
}

/**
 * The `Upload` scalar's value for one file part: content spools as it arrives (see FileSpool). The scalar only passes the value on; the upload resolver reads a `SpooledUpload` as such.
 */
function uploadOf(filename: string, spool: FileSpool): Upload {
  const upload = new Upload();
  const file: SpooledUpload = { filename, spool };
  upload.resolve(file as unknown as FileUpload);
  return upload;
}

/**
 * Body parser for `multipart/form-data` (the REST twin of graphql-upload-ts on /graphql): text fields
 * become `req.body` entries and file parts graphql-upload-ts `Upload`s, so a route passes them as
 * `Upload` variables to its GraphQL operation. Limits answer 413 and keep nothing; the spooled
 * content goes when the response ends.
 */
export function multipartBody({ blocks, ...limits }: MultipartOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy reports `limit` when a file reaches the size, so a file of exactly the maximum needs one byte more.
        limits: { fileSize: limits.maxFileBytes + 1, files: limits.maxFiles, fields: MAX_FIELDS, fieldSize: limits.maxFieldBytes },
      });
    } catch {
      return next(new DomainError('BAD_REQUEST', 'The multipart body could not be read.'));
    }
    const body: Record<string, unknown> = {};
    const flow = new MultipartFlow(req, parser);
    const spools: FileSpool[] = [];
    let settled = false;
    res.once('close', () => spools.forEach((spool) => spool.destroy()));

    const fail = (error: DomainError) => {
      if (settled) return;
      settled = true;
      // Reads the rest of the body away so the client, still sending, gets to read the answer.
      flow.stop();
      // Limits are reported from inside busboy's parsing loop, which must not see its parser destroyed under it.
      setImmediate(() => {
        parser.destroy();
        spools.forEach((spool) => spool.destroy());
      });
      next(error);
    };

    parser.on('file', (field, stream, { filename }) => {
      if (settled) return stream.resume();
      const spool = new FileSpool(blocks);
      spools.push(spool);
      // A spool that cannot write (disk full) fails the upload when it is read.
      spool.on('error', () => {});
      stream.on('error', () => fail(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
      stream.on('limit', () => fail(fileTooLarge(limits.maxFileBytes)));
      flow.feed(stream, spool);
      collect(body, field, uploadOf(filename ?? '', spool));
    });
    parser.on('field', (field, value, { valueTruncated }) => {
      if (valueTruncated) fail(new DomainError('PAYLOAD_TOO_LARGE', `The ${field} field is too large.`));
      else collect(body, field, value);
    });
    parser.on('filesLimit', () => fail(tooManyFiles(limits.maxFiles)));
    parser.on('fieldsLimit', () => fail(new DomainError('PAYLOAD_TOO_LARGE', `No more than ${MAX_FIELDS} form fields are accepted.`)));
    parser.on('error', () => fail(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      req.body = body;
      next();
    });
    flow.start();
  };
}
