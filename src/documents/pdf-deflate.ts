import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';

type Deflate = (data: Uint8Array, options?: unknown) => Uint8Array;

/**
 * pdf-lib compresses every stream it writes (page contents, font subsets and their cmaps, object
 * streams, form XObjects) with pako, zlib ported to JavaScript: several times the CPU of Node's zlib
 * and a few hundred KB of garbage a call (its window and hash tables), most of a document worker's
 * garbage collection. Its calls go through the one pako module object, so pointing that object's
 * `deflate` at Node's zlib (the same zlib format at the same default level) changes only the cost.
 * Calls with pako options keep pako.
 */
function useNativeDeflate(): void {
  const requireFromPdfLib = createRequire(createRequire(import.meta.url).resolve('pdf-lib'));
  const pako = requireFromPdfLib('pako') as { deflate: Deflate & { native?: true } };
  if (pako.deflate.native) return;
  const original = pako.deflate;
  const native: Deflate & { native?: true } = (data, options) => (options === undefined ? deflateSync(data) : original(data, options));
  native.native = true;
  pako.deflate = native;
}

useNativeDeflate();
