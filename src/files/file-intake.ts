import { ContentDigest, type ContentFacts } from './content-digest.js';
import { detectFileType, type FileType, SNIFF_BYTES } from './file-type.js';
import type { BlobWriter } from './storage/blob-storage.js';
import { fileTooLarge, unsupportedType } from './upload-limits.js';

/** A file on its way in: its client-given name and its content, read once. */
export interface IncomingFile {
  filename: string;
  /** Read once, in order; with `facts` each chunk is stored before the next is asked for, so the source may reuse its buffer. */
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** The content's facts when a first pass already learnt them (a spooled upload): nothing is hashed again. */
  facts?: ContentFacts;
}

export interface Intake {
  hash: string;
  size: number;
  type: FileType;
}

const asBuffer = (part: Uint8Array) => (Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));

function typeOf(file: IncomingFile, head: Buffer): FileType {
  const type = detectFileType(head);
  if (!type) throw unsupportedType(file.filename);
  return type;
}

/** Content whose facts are known: type and size are refused before any byte is stored. */
async function intakeKnown(file: IncomingFile, facts: ContentFacts, writer: BlobWriter, maxBytes: number): Promise<Intake> {
  const type = typeOf(file, facts.head);
  if (facts.size > maxBytes) throw fileTooLarge(maxBytes);
  let size = 0;
  for await (const part of file.content) {
    size += part.byteLength;
    await writer.write(asBuffer(part));
  }
  if (size !== facts.size) throw new Error(`the content of ${JSON.stringify(file.filename)} read back ${size} bytes, not ${facts.size}`);
  await writer.close();
  return { hash: facts.hash, size, type };
}

/**
 * Streams one file into storage, hashing and counting it unless its facts are known already; its type
 * is decided from the first bytes before any byte is stored. Memory holds at most the sniffed head
 * and the storage's chunk.
 */
export async function intake(file: IncomingFile, writer: BlobWriter, maxBytes: number): Promise<Intake> {
  if (file.facts) return intakeKnown(file, file.facts, writer, maxBytes);
  const digest = new ContentDigest();
  let size = 0;
  let type: FileType | undefined;
  let head: Buffer[] = [];
  let headBytes = 0;

  const decide = async () => {
    const start = head.length === 1 ? head[0]! : Buffer.concat(head, headBytes);
    type = typeOf(file, start);
    head = [];
    await writer.write(start);
  };

  for await (const part of file.content) {
    const chunk = asBuffer(part);
    size += chunk.length;
    if (size > maxBytes) throw fileTooLarge(maxBytes);
    digest.update(chunk);
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
  return { hash: digest.finish().hash, size, type: type! };
}
