import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { FileRuntime } from './file-runtime.js';
import { countFilesToMove, type FileToMove, filesToMove, switchStorage } from './file.repository.js';
import type { BlobKey, BlobStorage } from './storage/blob-storage.js';

export interface MigrationProgress {
  /** Files that were on another driver when the run started. */
  total: number;
  moved: number;
  bytes: number;
}

const BATCH = 100;

class FileGone extends Error {}

/** A run that stopped on a file (the store unreachable, content not matching its record); the files before it are moved. */
export class MigrationStopped extends Error {
  constructor(uuid: string, cause: unknown) {
    super(`moving files stopped at file ${uuid}: ${cause instanceof Error ? cause.message || cause.name : String(cause)}; run files:migrate again to resume`, {
      cause,
    });
  }
}

/** Copies one blob from `source` to `target`, checking its size and SHA-256 against the record on the way. */
async function copy(em: EntityManager, source: BlobStorage, target: BlobStorage, file: FileToMove, key: BlobKey): Promise<void> {
  const writer = await target.create(em, key, file.size);
  const digest = createHash('sha256');
  let size = 0;
  for await (const chunk of await source.open(em, key, file.size)) {
    digest.update(chunk as Buffer);
    size += (chunk as Buffer).length;
    await writer.write(chunk as Buffer);
  }
  const hash = digest.digest('hex');
  if (size !== file.size || hash !== file.hash) throw new Error(`file ${file.uuid}: its content in ${source.name} does not match its record (${size} bytes)`);
  await writer.close();
}

/** Points the record at `target`; content kept in the database leaves with the same commit. */
async function switchRecord(tx: EntityManager, source: BlobStorage, target: BlobStorage, file: FileToMove, key: BlobKey): Promise<void> {
  if (!(await switchStorage(tx, file.uuid, source.name, target.name))) throw new FileGone();
  if (source.name === 'postgres') await source.remove(tx, key);
}

/**
 * Moves one file's content; true when moved, false when it was purged or moved by someone else
 * meanwhile. A copy into the database is written in the transaction that switches the record; a
 * copy into a store outside it is made before that transaction (so no transaction stays open while
 * bytes travel) and discarded when the switch does not happen. Interrupted anywhere, the record
 * still names a driver holding its content; at worst an unreferenced copy is left behind, which the
 * next run overwrites.
 */
async function moveOne(orm: Orm, runtime: FileRuntime, target: BlobStorage, file: FileToMove): Promise<boolean> {
  const source = runtime.driver(file.storage);
  const key = { tenant: file.tenant_uuid, uuid: file.uuid };
  const em = orm.em.fork();
  try {
    if (target.name === 'postgres') {
      await em.transactional(async (tx) => {
        await copy(tx, source, target, file, key);
        await switchRecord(tx, source, target, file, key);
      });
    } else {
      await copy(em, source, target, file, key);
      await em.transactional((tx) => switchRecord(tx, source, target, file, key));
    }
  } catch (error) {
    await target.discard([key]).catch(() => undefined);
    if (error instanceof FileGone) return false;
    throw error;
  }
  if (source.name !== 'postgres') await source.remove(em, key);
  return true;
}

/**
 * Moves the content of every file not on `targetName` there, one file at a time in uuid order
 * (`npm run cli -- files:migrate`). Resumable: each file is switched on its own, so a run stopped
 * anywhere is finished by running it again. `limit` stops after that many files.
 */
export async function migrateFiles(
  orm: Orm,
  runtime: FileRuntime,
  targetName: string,
  { limit = Infinity, onProgress = () => {} }: { limit?: number; onProgress?: (progress: MigrationProgress) => void } = {},
): Promise<MigrationProgress> {
  const target = runtime.driver(targetName);
  const total = await countFilesToMove(orm.em, target.name);
  const progress: MigrationProgress = { total, moved: 0, bytes: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await filesToMove(orm.em, target.name, after, BATCH);
    for (const file of batch) {
      if (progress.moved >= limit) return progress;
      const moved = await moveOne(orm, runtime, target, file).catch((error: unknown) => {
        throw new MigrationStopped(file.uuid, error);
      });
      if (moved) {
        progress.moved++;
        progress.bytes += file.size;
        onProgress(progress);
      }
      after = file.uuid;
    }
    if (batch.length < BATCH) return progress;
  }
}
