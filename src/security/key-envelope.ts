import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Envelope encryption for secrets at rest (private keys), AES-256-GCM in two layers: every sealed
 * value has its own random data key, and only that data key is encrypted ("wrapped") by the
 * key-encryption key. The caller's context (e.g. table and row uuid) is authenticated by both layers,
 * so a sealed value opens only where it was sealed. Rotation re-wraps the data key and leaves the
 * sealed value itself untouched.
 */
export interface KeyWrapper {
  /** A stable, non-secret name of the key-encryption key, written into every envelope it wraps. */
  readonly id: string;
  wrap(dataKey: Buffer, context: Buffer): Promise<Buffer>;
  unwrap(wrapped: Buffer, context: Buffer): Promise<Buffer>;
}

export type KeyEnvelopeFailure = 'WRONG_KEY' | 'NOT_AUTHENTIC' | 'MALFORMED';

export class KeyEnvelopeError extends Error {
  constructor(
    readonly reason: KeyEnvelopeFailure,
    message: string,
  ) {
    super(message);
    this.name = 'KeyEnvelopeError';
  }
}

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

interface Envelope {
  keyId: string;
  wrappedKey: Buffer;
  payload: Buffer;
}

function encrypt(key: Buffer, plaintext: Buffer, context: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(context);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

/** Throws NOT_AUTHENTIC when the key, the context or any byte differs from sealing. */
function decrypt(key: Buffer, sealed: Buffer, context: Buffer): Buffer {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new KeyEnvelopeError('MALFORMED', 'The sealed value is truncated.');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES)).setAAD(context);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new KeyEnvelopeError('NOT_AUTHENTIC', 'The sealed value does not open here: it was sealed for another row, or altered.');
  }
}

/** version (1) | key id length (1) | key id | wrapped key length (2) | wrapped key | payload */
function encode({ keyId, wrappedKey, payload }: Envelope): Buffer {
  const id = Buffer.from(keyId, 'utf8');
  const wrappedLength = Buffer.alloc(2);
  wrappedLength.writeUInt16BE(wrappedKey.length);
  return Buffer.concat([Buffer.from([VERSION, id.length]), id, wrappedLength, wrappedKey, payload]);
}

function decode(sealed: Buffer): Envelope {
  const malformed = () => new KeyEnvelopeError('MALFORMED', 'The sealed value is not a key envelope.');
  if (sealed.length < 2 || sealed[0] !== VERSION) throw malformed();
  const idEnd = 2 + sealed[1];
  if (sealed.length < idEnd + 2) throw malformed();
  const wrappedEnd = idEnd + 2 + sealed.readUInt16BE(idEnd);
  if (sealed.length < wrappedEnd) throw malformed();
  return {
    keyId: sealed.subarray(2, idEnd).toString('utf8'),
    wrappedKey: sealed.subarray(idEnd + 2, wrappedEnd),
    payload: sealed.subarray(wrappedEnd),
  };
}

async function unwrapFor(wrapper: KeyWrapper, envelope: Envelope, context: Buffer): Promise<Buffer> {
  if (envelope.keyId !== wrapper.id) {
    throw new KeyEnvelopeError('WRONG_KEY', `Sealed under key-encryption key "${envelope.keyId}", but the configured key is "${wrapper.id}".`);
  }
  return wrapper.unwrap(envelope.wrappedKey, context);
}

export async function seal(wrapper: KeyWrapper, plaintext: Buffer, context: string): Promise<Buffer> {
  const aad = Buffer.from(context, 'utf8');
  const dataKey = randomBytes(KEY_BYTES);
  const payload = encrypt(dataKey, plaintext, aad);
  return encode({ keyId: wrapper.id, wrappedKey: await wrapper.wrap(dataKey, aad), payload });
}

export async function open(wrapper: KeyWrapper, sealed: Buffer, context: string): Promise<Buffer> {
  const aad = Buffer.from(context, 'utf8');
  const envelope = decode(sealed);
  return decrypt(await unwrapFor(wrapper, envelope, aad), envelope.payload, aad);
}

/** The same sealed value with its data key wrapped by `to` instead of `from`. */
export async function rewrap(from: KeyWrapper, to: KeyWrapper, sealed: Buffer, context: string): Promise<Buffer> {
  const aad = Buffer.from(context, 'utf8');
  const envelope = decode(sealed);
  const dataKey = await unwrapFor(from, envelope, aad);
  decrypt(dataKey, envelope.payload, aad); // never re-wrap a value that would not open
  return encode({ ...envelope, keyId: to.id, wrappedKey: await to.wrap(dataKey, aad) });
}

/** The id of the key-encryption key a sealed value is wrapped under. */
export function sealedKeyId(sealed: Buffer): string {
  return decode(sealed).keyId;
}

/** A key-encryption key held in this process (from KEY_ENCRYPTION_KEY); a KMS would be another KeyWrapper. */
export function localKeyWrapper(kek: Buffer): KeyWrapper {
  if (kek.length !== KEY_BYTES) throw new Error(`a key-encryption key is ${KEY_BYTES} bytes, got ${kek.length}`);
  const key = Buffer.from(kek);
  return {
    id: `local:${createHash('sha256').update('key-encryption-key id\0').update(key).digest('hex').slice(0, 16)}`,
    wrap: async (dataKey, context) => encrypt(key, dataKey, context),
    unwrap: async (wrapped, context) => {
      try {
        return decrypt(key, wrapped, context);
      } catch (error) {
        if (!(error instanceof KeyEnvelopeError)) throw error;
        throw new KeyEnvelopeError('NOT_AUTHENTIC', 'The data key does not unwrap: the envelope was sealed for another row, or altered.');
      }
    },
  };
}

/** KEY_ENCRYPTION_KEY's text: 64 hex digits or base64 (standard or URL-safe) of exactly 32 bytes. */
export function parseKeyEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  const canonical = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || /^[0-9a-f]{64}$/i.test(trimmed);
  if (!canonical || bytes.length !== KEY_BYTES) throw new Error(`must be ${KEY_BYTES} bytes as 64 hex digits or base64`);
  return bytes;
}
