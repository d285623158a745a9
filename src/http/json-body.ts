import express, { type RequestHandler } from 'express';

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether JSON text nests objects/arrays deeper than `max`, read byte by byte (strings skipped) before anything is parsed. */
export function nestsDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** The error body-parser passes on; the HTTP error handler (http/error-response.ts) answers it with a 400. */
export class JsonTooDeepError extends Error {
  readonly type = 'entity.too.deep';
  constructor(readonly maxDepth: number) {
    super(`The request body is nested deeper than ${maxDepth} levels.`);
  }
}

/**
 * `express.json` that refuses bodies nested deeper than `maxDepth` before parsing them, so no code
 * after it (key renaming, GraphQL coercion) ever walks a structure as deep as a client chooses.
 */
export function jsonBody({ limit, maxDepth }: { limit: string; maxDepth: number }): RequestHandler {
  return express.json({
    limit,
    verify: (_req, _res, body) => {
      if (nestsDeeperThan(body, maxDepth)) throw new JsonTooDeepError(maxDepth);
    },
  });
}
