import busboy from 'busboy';
import type { Request, Response } from 'express';
import { type FileUpload, Upload } from 'graphql-upload-ts';
import { DomainError } from '../errors/domain-error.js';
import type { BlockPool } from '../files/block-pool.js';
import { FileSpool, type SpooledUpload } from '../files/file-spool.js';
import { fileTooLarge, tooManyFiles } from '../files/upload-limits.js';
import { MultipartFlow } from './multipart-flow.js';

/** Bytes of one text field of a multipart body (a GraphQL request's `operations` among them). */
export const MULTIPART_FIELD_BYTES = 1024 * 1024;

export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
  /** Bytes of one text field. */
  maxFieldBytes: number;
  /** Text fields of one request. */
  maxFields: number;
}

export interface MultipartOptions extends MultipartLimits {
  /** Where file parts keep their first blocks (FileRuntime.uploadBlocks). */
  blocks: BlockPool;
}

/** What a transport makes of a form's parts, in the order they arrive; a DomainError it throws fails the request. */
export interface MultipartReader {
  field(name: string, value: string): void;
  /** Whether the file part `name` is wanted; an unwanted one is read away. */
  wantsFile(name: string): boolean;
  /** A wanted file part, spooling as it arrives (its spool finishes once its last byte is stored). */
  file(name: string, filename: string, spool: FileSpool): void;
}

/** The `Upload` scalar's value for a spooled part; the upload resolver reads a `SpooledUpload` as such. */
export function spooledUpload(filename: string, spool: FileSpool): Upload {
  const upload = new Upload();
  resolveSpooled(upload, filename, spool);
  return upload;
}

/** Settles an `Upload` made before its part arrived (a GraphQL request's `map` names it first). */
export function resolveSpooled(upload: Upload, filename: string, spool: FileSpool): void {
  const file: SpooledUpload = { filename, spool };
  upload.resolve(file as unknown as FileUpload);
}

/** The 400 of a multipart body busboy cannot read (a malformed or empty boundary among them), for every transport. */
export const unreadableMultipart = () => new DomainError('BAD_REQUEST', 'The multipart body could not be read.');

/**
 * Reads a `multipart/form-data` body for both transports (REST forms, GraphQL multipart requests):
 * text fields and file parts go to `reader` as they arrive, each file part into a FileSpool through a
 * MultipartFlow, which frees each body chunk once it is stored. Resolves once the whole body is read;
 * over a limit it rejects with the 413, anything malformed with a 400, and reads the rest of the body
 * away so that the client, still sending, gets to read the answer. The spools go when the response ends.
 */
export function readMultipart(req: Request, res: Response, { blocks, ...limits }: MultipartOptions, reader: MultipartReader): Promise<void> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy reports `limit` when a file reaches the size, so a file of exactly the maximum needs one byte more.
        limits: { fileSize: limits.maxFileBytes + 1, files: limits.maxFiles, fields: limits.maxFields, fieldSize: limits.maxFieldBytes },
      });
    } catch {
      return reject(unreadableMultipart());
    }
    const flow = new MultipartFlow(req, parser);
    const spools: FileSpool[] = [];
    let settled = false;
    res.once('close', () => spools.forEach((spool) => spool.destroy()));

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      flow.stop();
      // Limits are reported from inside busboy's parsing loop, which must not see its parser destroyed under it.
      setImmediate(() => {
        parser.destroy();
        spools.forEach((spool) => spool.destroy());
      });
      reject(error instanceof DomainError ? error : unreadableMultipart());
    };
    /** Runs a reader callback; what it throws fails the request. */
    const guarded = (work: () => void) => {
      try {
        work();
      } catch (error) {
        fail(error);
      }
    };

    parser.on('file', (name, stream, { filename }) => {
      // Any part may fail (a body cut short, the parser destroyed after another failure), kept or read away.
      stream.on('error', () => fail(unreadableMultipart()));
      if (settled) return stream.resume();
      let wanted = false;
      guarded(() => (wanted = reader.wantsFile(name)));
      if (!wanted) return stream.resume();
      const spool = new FileSpool(blocks);
      spools.push(spool);
      // A spool that cannot write (disk full) fails its upload when it is read.
      spool.on('error', () => {});
      stream.on('limit', () => fail(fileTooLarge(limits.maxFileBytes)));
      flow.feed(stream, spool);
      guarded(() => reader.file(name, filename ?? '', spool));
    });
    parser.on('field', (name, value, { valueTruncated }) => {
      if (settled) return;
      if (valueTruncated) fail(new DomainError('PAYLOAD_TOO_LARGE', `The ${name} field is too large.`));
      else guarded(() => reader.field(name, value));
    });
    parser.on('filesLimit', () => fail(tooManyFiles(limits.maxFiles)));
    parser.on('fieldsLimit', () => fail(new DomainError('PAYLOAD_TOO_LARGE', `No more than ${limits.maxFields} form fields are accepted.`)));
    parser.on('error', () => fail(unreadableMultipart()));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    flow.start();
  });
}
