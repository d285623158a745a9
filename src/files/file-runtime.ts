import type { Config } from '../config.js';
import { BlockPool } from './block-pool.js';
import type { BlobStorage } from './storage/blob-storage.js';
import { FilesystemBlobStorage } from './storage/filesystem-storage.js';
import { UploadBudget } from './upload-budget.js';
import { S3BlobStorage } from './storage/s3-storage.js';
import { INSERT_BYTES, PostgresBlobStorage } from './storage/postgres-storage.js';

export interface FileSettings {
  maxFileBytes: number;
  maxFiles: number;
  /** Bytes of live files a tenant may hold (0 = unlimited). */
  quotaBytes: number;
}

/** What the files domain needs from its service's configuration: limits, URLs and storage drivers. */
export interface FileRuntime {
  settings: FileSettings;
  /** The driver new content goes to (FILE_STORAGE). */
  storage: BlobStorage;
  /** The driver a stored file names; every configured one stays readable whichever takes new content. */
  driver(name: string): BlobStorage;
  /** Bytes of multipart requests in flight, per tenant and in all (see upload-slots.ts). */
  uploadBudget: UploadBudget;
  /** Buffers of what one PostgreSQL statement stores, for uploads in flight: small files' content, reading spooled ones back. */
  uploadBlocks: BlockPool;
}

/**
 * Upload buffers lent at most for file content in memory (16 MiB), all kept once made: a freed 1 MiB
 * buffer makes glibc serve such sizes from its heap from then on, where long-lived ones pin the
 * freed memory around them.
 */
const [IDLE_UPLOAD_BLOCKS, LENDABLE_UPLOAD_BLOCKS] = [16, 16];

/** The file settings and storage drivers of one running service (see ServiceRuntime). */
export function createFileRuntime(config: Config): FileRuntime {
  const drivers: Record<string, BlobStorage> = {
    postgres: new PostgresBlobStorage(),
    filesystem: new FilesystemBlobStorage(config.filesDir),
    ...(config.s3 ? { s3: new S3BlobStorage(config.s3) } : {}),
  };
  return {
    settings: {
      maxFileBytes: config.uploadMaxFileBytes,
      maxFiles: config.uploadMaxFiles,
      quotaBytes: config.storageQuotaBytes,
    },
    uploadBudget: new UploadBudget(config.uploadsInFlight),
    uploadBlocks: new BlockPool(INSERT_BYTES, IDLE_UPLOAD_BLOCKS, LENDABLE_UPLOAD_BLOCKS),
    storage: drivers[config.fileStorage]!,
    driver(name) {
      const driver = drivers[name];
      if (!driver) throw new Error(`no file storage driver "${name}" is configured (S3_BUCKET for s3)`);
      return driver;
    },
  };
}

/** The public download address of a file. */
export function downloadUrl(publicBaseUrl: string, uuid: string): string {
  return `${publicBaseUrl}/api/v1/files/${uuid}/download`;
}
