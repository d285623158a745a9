import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobKey, BlobStorage, BlobWriter } from './blob-storage.js';

class FileWriter implements BlobWriter {
  private handle?: FileHandle;

  constructor(
    private readonly partPath: string,
    private readonly finalPath: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.handle ??= await this.openPart();
    await this.handle.write(chunk);
  }

  /** Durable before the record commits: a crash after the commit never leaves a record without content. */
  async close(): Promise<void> {
    this.handle ??= await this.openPart();
    await this.handle.sync();
    await this.handle.close();
    await rename(this.partPath, this.finalPath);
  }

  private async openPart(): Promise<FileHandle> {
    await mkdir(path.dirname(this.partPath), { recursive: true });
    return open(this.partPath, 'w', 0o640);
  }
}

/**
 * Optional driver (FILE_STORAGE=filesystem): one file per blob under `dir`, fanned out by the uuid's
 * last two hex digits (its first ones are a timestamp). A rollback removes what it wrote; a crash
 * between writing and committing can leave an orphan blob, never a record without content.
 */
export class FilesystemBlobStorage implements BlobStorage {
  readonly name = 'filesystem' as const;

  constructor(private readonly dir: string) {}

  private pathOf({ uuid }: BlobKey): string {
    if (!/^[0-9a-f-]{36}$/.test(uuid)) throw new Error(`not a blob key: ${uuid}`);
    return path.join(this.dir, uuid.slice(-2), uuid);
  }

  async create(_em: unknown, key: BlobKey): Promise<BlobWriter> {
    const finalPath = this.pathOf(key);
    return new FileWriter(`${finalPath}.part`, finalPath);
  }

  async open(_em: unknown, key: BlobKey): Promise<Readable> {
    const handle = await open(this.pathOf(key), 'r');
    return handle.createReadStream({ highWaterMark: 256 * 1024 });
  }

  async remove(_em: unknown, key: BlobKey): Promise<void> {
    await this.discard([key]);
  }

  async discard(keys: BlobKey[]): Promise<void> {
    await Promise.all(keys.flatMap((key) => [rm(this.pathOf(key), { force: true }), rm(`${this.pathOf(key)}.part`, { force: true })]));
  }
}
