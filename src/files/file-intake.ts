import { createHash } from 'node:crypto';
import { detectFileType, type FileType, SNIFF_BYTES } from './file-type.js';
import type { BlobWriter } from './storage/blob-storage.js';
import { fileTooLarge, unsupportedType } from './upload-limits.js';

/** A file on its way in: its client-given name and its content, read once. */
export interface IncomingFile {
  filename: string;
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

export interface Intake {
  hash: string;
  size: number;
  type: FileType;
}

const asBuffer = (part: Uint8Array) => (Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));

/**
 * Streams one file into storage while hashing and counting it; its type is decided from the first
 * bytes before any byte is stored. Memory holds at most the sniffed head and the storage's chunk.
 */
export async function intake(file: IncomingFile, writer: BlobWriter, maxBytes: number): Promise<Intake> {
  const hash = createHash('sha256');
  let size = 0;
  let type: FileType | undefined;
  let head: Buffer[] = [];
  let headBytes = 0;

  const decide = async () => {
    const start = Buffer.concat(head, headBytes);
    type = detectFileType(start);
    if (!type) throw unsupportedType(file.filename);
    head = [];
    await writer.write(start);
  };

  for await (const part of file.content) {
    const chunk = asBuffer(part);
    size += chunk.length;
    if (size > maxBytes) throw fileTooLarge(maxBytes);
    hash.update(chunk);
    if (type) {
      await writer.write(chunk);
      continue;
    }
    head.push(chunk);
    headBytes += chunk.length;
    if (headBytes >= SNIFF_BYTES) await decide();
  }
  if (!type) await decide();
  await writer.close();
  return { hash: hash.digest('hex'), size, type: type! };
}
