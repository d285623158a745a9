import encodeChunks from 'png-chunks-encode';
import extractChunks from 'png-chunks-extract';

/**
 * Badge baking in PNG (1EdTech Open Badges Baking 1.0): one uncompressed `iTXt` chunk with keyword
 * `openbadges` whose text is the assertion JSON. Chunks are read and written with
 * png-chunks-extract / png-chunks-encode, which check and compute the CRCs.
 */

const KEYWORD = 'openbadges';
/** Open Badges 3.0 §5.3.1: the keyword of a baked OpenBadgeCredential. */
export const CREDENTIAL_KEYWORD = 'openbadgecredential';
const SIGNATURE_BYTES = 8;
/** Length, type and CRC around every chunk's data. */
const CHUNK_OVERHEAD = 12;

export class BakingError extends Error {}

type Chunk = { name: string; data: Uint8Array };

/** iTXt data: keyword, NUL, compression flag 0, method 0, empty language tag and translated keyword (NUL each), UTF-8 text. */
function iTXtData(text: string, keyword: string): Uint8Array {
  return Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(text, 'utf8')]);
}

const keywordOf = (data: Uint8Array) => {
  const end = data.indexOf(0);
  return end < 0 ? null : Buffer.from(data.subarray(0, end)).toString('latin1');
};

const isBadgeChunk = (keyword: string) => (chunk: Chunk) => (chunk.name === 'iTXt' || chunk.name === 'tEXt') && keywordOf(chunk.data) === keyword;

/**
 * png-chunks-extract allocates whatever length a chunk header declares before reading it; on input
 * from the public a forged length would cost gigabytes. Every declared length must fit in the file.
 */
function assertLengthsFit(png: Uint8Array): void {
  const view = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  let at = SIGNATURE_BYTES;
  while (at + 8 <= view.length) {
    const length = view.readUInt32BE(at);
    if (length > view.length - at - CHUNK_OVERHEAD) throw new BakingError('A PNG chunk is longer than the file.');
    if (view.toString('latin1', at + 4, at + 8) === 'IEND') return;
    at += CHUNK_OVERHEAD + length;
  }
  throw new BakingError('The PNG ends before its IEND chunk.');
}

function chunksOf(png: Uint8Array): Chunk[] {
  assertLengthsFit(png);
  try {
    return extractChunks(png);
  } catch (error) {
    throw new BakingError(`Not a readable PNG: ${(error as Error).message}`);
  }
}

/** The image with `assertionJson` baked in; a chunk baked before is replaced, never kept beside it. */
export function bakePng(png: Uint8Array, assertionJson: string, keyword = KEYWORD): Buffer {
  const chunks = chunksOf(png).filter((chunk) => !isBadgeChunk(keyword)(chunk));
  chunks.splice(chunks.length - 1, 0, { name: 'iTXt', data: iTXtData(assertionJson, keyword) });
  return Buffer.from(encodeChunks(chunks));
}

/** What a baked PNG carries: the assertion JSON (iTXt), or a legacy hosted URL (tEXt); null when nothing is baked. */
export function extractFromPng(png: Uint8Array, keyword = KEYWORD): { json: string } | { url: string } | null {
  const chunk = chunksOf(png).find(isBadgeChunk(keyword));
  if (!chunk) return null;
  const data = Buffer.from(chunk.data);
  const afterKeyword = keyword.length + 1;
  if (chunk.name === 'tEXt') return { url: data.toString('latin1', afterKeyword) };
  if (data[afterKeyword] !== 0) throw new BakingError(`The ${keyword} iTXt chunk is compressed; the baking specification forbids it.`);
  const languageEnd = data.indexOf(0, afterKeyword + 2);
  const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1);
  if (translatedEnd < 0) throw new BakingError(`The ${keyword} iTXt chunk is malformed.`);
  return { json: data.toString('utf8', translatedEnd + 1) };
}
