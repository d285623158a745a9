import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { DEVELOPMENT_KEY_FILE, resolveKeyWrapper } from '../src/security/key-encryption-key.js';
import { localKeyWrapper, open, parseKeyEncryptionKey, rewrap, seal, sealedKeyId } from '../src/security/key-envelope.js';

const kek = () => localKeyWrapper(randomBytes(32));
const secret = Buffer.from('a private key, PKCS#8 or Ed25519 alike');

describe('key envelope', () => {
  it('opens what it sealed, only with the same key-encryption key and context', async () => {
    const [mine, other] = [kek(), kek()];
    const sealed = await seal(mine, secret, 'signing_identities/a');
    expect(sealed.includes(secret)).toBe(false);
    expect(await open(mine, sealed, 'signing_identities/a')).toEqual(secret);
    await expect(open(other, sealed, 'signing_identities/a')).rejects.toMatchObject({ reason: 'WRONG_KEY', message: expect.stringContaining(mine.id) });
    await expect(open(mine, sealed, 'signing_identities/b')).rejects.toMatchObject({ reason: 'NOT_AUTHENTIC' });
  });

  it('refuses a sealed value with any byte changed', async () => {
    const wrapper = kek();
    const sealed = await seal(wrapper, secret, 'row');
    for (const at of [sealed.length - 1, sealed.length - 30, sealed.length - secret.length - 20]) {
      const altered = Buffer.from(sealed);
      altered[at]! ^= 1;
      await expect(open(wrapper, altered, 'row')).rejects.toMatchObject({ name: 'KeyEnvelopeError' });
    }
  });

  it('re-wraps to a new key-encryption key without changing the sealed payload', async () => {
    const [before, after] = [kek(), kek()];
    const sealed = await seal(before, secret, 'row');
    const moved = await rewrap(before, after, sealed, 'row');
    expect(sealedKeyId(moved)).toBe(after.id);
    expect(moved.subarray(moved.length - secret.length - 28)).toEqual(sealed.subarray(sealed.length - secret.length - 28));
    expect(await open(after, moved, 'row')).toEqual(secret);
    await expect(open(before, moved, 'row')).rejects.toMatchObject({ reason: 'WRONG_KEY' });
    await expect(rewrap(before, after, sealed, 'another row')).rejects.toMatchObject({ reason: 'NOT_AUTHENTIC' });
  });

  it('reads KEY_ENCRYPTION_KEY as 32 bytes of hex or base64, nothing else', () => {
    const bytes = randomBytes(32);
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url'), ` ${bytes.toString('base64')}\n`]) {
      expect(parseKeyEncryptionKey(text)).toEqual(bytes);
    }
    for (const text of [randomBytes(31).toString('base64'), randomBytes(33).toString('hex'), 'correct horse battery staple', '']) {
      expect(() => parseKeyEncryptionKey(text)).toThrow('must be 32 bytes');
    }
  });
});

describe('the key-encryption key', () => {
  it('is required in production, and a malformed one is refused without echoing it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('KEY_ENCRYPTION_KEY must be set in production');
    expect(() => loadConfig({ KEY_ENCRYPTION_KEY: 'hunter2' })).toThrow(/^KEY_ENCRYPTION_KEY must be 32 bytes/);
    expect(() => loadConfig({ KEY_ENCRYPTION_KEY: 'hunter2' })).not.toThrow(/hunter2/);
  });

  it('outside production, is generated once into DATA_DIR with mode 0600 and reused', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'credential-service-kek-'));
    try {
      const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
      const [first, second] = [await resolveKeyWrapper(config, createLogger('silent')), await resolveKeyWrapper(config, createLogger('silent'))];
      expect(second.id).toBe(first.id);
      expect((await stat(path.join(dataDir, DEVELOPMENT_KEY_FILE))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
