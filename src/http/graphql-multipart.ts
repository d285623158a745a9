import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Upload } from 'graphql-upload-ts';
import { DomainError } from '../errors/domain-error.js';
import { tooManyFiles } from '../files/upload-limits.js';
import { nestsDeeperThan } from './json-body.js';
import { type MultipartOptions, readMultipart, resolveSpooled } from './multipart-form.js';

const SPEC = 'https://github.com/jaydenseric/graphql-multipart-request-spec';
const badRequest = (problem: string) => new DomainError('BAD_REQUEST', `${problem} (${SPEC}).`);

type Operations = Record<string, unknown> | unknown[];

/** Puts `upload` where a `map` path ("variables.files.0") points, through own properties only; false unless it points at a null. */
function placeAt(operations: Operations, path: string, upload: Upload): boolean {
  const steps = path.split('.');
  let node: unknown = operations;
  for (const step of steps.slice(0, -1)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, step)) return false;
    node = (node as Record<string, unknown>)[step];
  }
  const last = steps.at(-1)!;
  // The spec's placeholder is null: nothing else is replaced, and no prototype is reached.
  if (typeof node !== 'object' || node === null || !Object.hasOwn(node, last) || (node as Record<string, unknown>)[last] !== null) return false;
  (node as Record<string, unknown>)[last] = upload;
  return true;
}

export interface GraphqlMultipartOptions extends Omit<MultipartOptions, 'maxFields'> {
  /** The nesting JSON bodies may have (JSON_MAX_DEPTH), for `operations` and `map` too. */
  maxJsonDepth: number;
}

/**
 * Body parser for GraphQL multipart requests (the spec above) on /graphql, read like a REST form
 * (src/http/multipart-form.ts): `operations`, then `map`, then the files, each spooled and freed chunk
 * by chunk as on REST; `req.body` becomes the operations with graphql-upload-ts `Upload`s in place.
 * It passes on once the whole body is read (the upload resolver waits for every part anyway), so a
 * file over the limit is a 413 before any operation runs; a file the map names but the body lacks
 * fails its operation with a 400.
 */
export function graphqlMultipartBody(options: GraphqlMultipartOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    readOperations(req, res, options).then((operations) => {
      req.body = operations;
      next();
    }, next);
  };
}

async function readOperations(req: Request, res: Response, options: GraphqlMultipartOptions): Promise<Operations> {
  const parseJson = (text: string, field: string): unknown => {
    if (nestsDeeperThan(Buffer.from(text), options.maxJsonDepth))
      throw new DomainError('BAD_REQUEST', `The ‘${field}’ multipart field is nested deeper than ${options.maxJsonDepth} levels.`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw badRequest(`Invalid JSON in the ‘${field}’ multipart field`);
    }
  };
  let operations: Operations | undefined;
  let uploads: Map<string, Upload> | undefined;
  await readMultipart(
    req,
    res,
    { ...options, maxFields: 2 },
    {
      field(name, value) {
        if (name === 'operations') {
          if (operations) throw badRequest('The ‘operations’ multipart field came twice');
          operations = parseJson(value, 'operations') as Operations;
          if (typeof operations !== 'object' || operations === null) throw badRequest('Invalid type for the ‘operations’ multipart field');
        } else if (name === 'map') {
          if (!operations) throw badRequest('Disordered multipart fields; ‘map’ should follow ‘operations’');
          if (uploads) throw badRequest('The ‘map’ multipart field came twice');
          uploads = mapUploads(operations, parseJson(value, 'map'), options.maxFiles);
        }
      },
      wantsFile(name) {
        if (!uploads) throw badRequest('Disordered multipart fields; files should follow ‘map’');
        return uploads.has(name);
      },
      file(name, filename, spool) {
        const upload = uploads!.get(name)!;
        if (upload.file) throw badRequest(`The file part ‘${name}’ came twice`);
        resolveSpooled(upload, filename, spool);
      },
    },
  );
  if (!operations) throw badRequest('Missing multipart field ‘operations’');
  if (!uploads) throw badRequest('Missing multipart field ‘map’');
  for (const upload of uploads.values()) if (!upload.file) upload.reject(new DomainError('BAD_REQUEST', 'File missing in the request.'));
  return operations;
}

/** The map's uploads by file field, each placed at its paths in `operations`. */
function mapUploads(operations: Operations, map: unknown, maxFiles: number): Map<string, Upload> {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw badRequest('Invalid type for the ‘map’ multipart field');
  const entries = Object.entries(map);
  if (entries.length > maxFiles) throw tooManyFiles(maxFiles);
  const uploads = new Map<string, Upload>();
  for (const [field, paths] of entries) {
    if (!Array.isArray(paths)) throw badRequest(`Invalid type for the ‘map’ multipart field entry key ‘${field}’ array`);
    const upload = new Upload();
    uploads.set(field, upload);
    for (const path of paths)
      if (typeof path !== 'string' || !placeAt(operations, path, upload))
        throw badRequest(`Invalid object path for the ‘map’ multipart field entry key ‘${field}’ value ${JSON.stringify(path)}`);
  }
  return uploads;
}
