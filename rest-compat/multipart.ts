import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type MultipartOptions, readMultipart, spooledUpload } from '../src/http/multipart-form.js';

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
 * Body parser for `multipart/form-data` on REST (src/http/multipart-form.ts): text fields become
 * `req.body` entries and file parts graphql-upload-ts `Upload`s, so a route passes them as `Upload`
 * variables to its GraphQL operation. Limits answer 413 and keep nothing; the spooled content goes
 * when the response ends.
 */
export function multipartBody(options: Omit<MultipartOptions, 'maxFields'>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    const body: Record<string, unknown> = {};
    readMultipart(
      req,
      res,
      { ...options, maxFields: MAX_FIELDS },
      {
        field: (name, value) => collect(body, name, value),
        wantsFile: () => true,
        file: (name, filename, spool) => collect(body, name, spooledUpload(filename, spool)),
      },
    ).then(() => {
      req.body = body;
      next();
    }, next);
  };
}
