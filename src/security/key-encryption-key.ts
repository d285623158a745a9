import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { localKeyWrapper, parseKeyEncryptionKey, type KeyWrapper } from './key-envelope.js';

export const DEVELOPMENT_KEY_FILE = 'key-encryption-key';

/**
 * The key-encryption key the service seals private keys with: KEY_ENCRYPTION_KEY (required in
 * production, config.ts refuses to start without it), or outside production one generated once into
 * DATA_DIR, so development and tests need no setup. That file sits beside the data it protects,
 * which is why production never uses it.
 */
export async function resolveKeyWrapper(config: Pick<Config, 'keyEncryptionKey' | 'dataDir' | 'env'>, logger: Logger): Promise<KeyWrapper> {
  if (config.keyEncryptionKey) return localKeyWrapper(config.keyEncryptionKey);
  if (config.env === 'production') throw new Error('KEY_ENCRYPTION_KEY is required in production');
  const file = path.join(config.dataDir, DEVELOPMENT_KEY_FILE);
  await mkdir(config.dataDir, { recursive: true });
  // `wx`: of several processes starting at once, one creates the key and the others read it.
  await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const wrapper = localKeyWrapper(parseKeyEncryptionKey(await readFile(file, 'utf8')));
  logger.warn(
    { file, keyId: wrapper.id },
    'KEY_ENCRYPTION_KEY is not set: signing keys are sealed with a development key kept in DATA_DIR (set KEY_ENCRYPTION_KEY, or better a KMS, in production)',
  );
  return wrapper;
}
