import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import type { S3Config } from '../../config.js';
import type { BlobKey, BlobStorage, BlobWriter } from './blob-storage.js';

/** S3's smallest part: a file up to this size is one PUT, a larger one a multipart upload of such parts. */
export const PART_BYTES = 5 * 1024 * 1024;

/** Bytes waiting for the upload to take them; with the part being filled and the one being sent, what one upload holds. */
const BUFFERED_BYTES = 256 * 1024;

/** How long a presigned download address works (S3_PRESIGNED_DOWNLOADS). */
export const PRESIGNED_SECONDS = 300;

/**
 * Streams one blob into an upload that starts with the first byte. Nothing is visible under the key
 * before the upload completes: one PUT is atomic, a multipart upload shows only once completed (and
 * is aborted when it fails or is discarded).
 */
class ObjectWriter implements BlobWriter {
  private body?: PassThrough;
  private upload?: Upload;
  private done?: Promise<unknown>;

  constructor(private readonly start: (body: PassThrough) => Upload) {}

  async write(chunk: Buffer): Promise<void> {
    const body = this.started();
    // The caller reuses `chunk` once this resolves, while the upload keeps what it is given until a part is full.
    if (body.write(Buffer.from(chunk))) return;
    await Promise.race([once(body, 'drain'), this.done!.then(() => Promise.reject(new Error('the object upload ended before its last byte')))]);
  }

  async close(): Promise<void> {
    this.started().end();
    await this.done;
  }

  /** Stops an upload that is not to complete; a multipart one is aborted by lib-storage. */
  async abort(): Promise<void> {
    if (!this.upload) return;
    await this.upload.abort().catch(() => undefined);
    this.body!.destroy();
    await this.done!.catch(() => undefined);
  }

  private started(): PassThrough {
    if (this.body) return this.body;
    const body = (this.body = new PassThrough({ highWaterMark: BUFFERED_BYTES }));
    this.upload = this.start(body);
    this.done = this.upload.done();
    // Observed by write and close; a failure before either asks is not an unhandled rejection.
    this.done.catch(() => undefined);
    return body;
  }
}

/** The AWS SDK, loaded with the first use of the store: a service without S3 never pays for its modules. */
async function loadSdk() {
  const [s3, storage, presigner] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage'), import('@aws-sdk/s3-request-presigner')]);
  return { ...s3, Upload: storage.Upload, getSignedUrl: presigner.getSignedUrl };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

function s3Client({ S3Client }: Sdk, config: S3Config): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // The newer CRC checksums are not understood by every S3-compatible store; content is checked by its SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Driver for an S3-compatible object store (FILE_STORAGE=s3): one object per blob under
 * `S3_PREFIX<tenant uuid>/<file uuid>`. Like the filesystem driver it lives outside the database: a
 * rollback removes what it wrote (`discard`), and a crash between the upload and the commit can
 * leave an orphan object, never a record without content.
 */
export class S3BlobStorage implements BlobStorage {
  readonly name = 's3' as const;
  private readonly writers = new Map<string, ObjectWriter>();
  /** Offered only with S3_PRESIGNED_DOWNLOADS=true (see BlobStorage.directUrl). */
  readonly directUrl?: BlobStorage['directUrl'];

  private connected?: Promise<{ sdk: Sdk; client: S3Client }>;

  constructor(private readonly config: S3Config) {
    if (config.presignedDownloads) this.directUrl = (key, headers) => this.presign(key, headers);
  }

  private connect(): Promise<{ sdk: Sdk; client: S3Client }> {
    return (this.connected ??= loadSdk().then((sdk) => ({ sdk, client: s3Client(sdk, this.config) })));
  }

  objectKey({ tenant, uuid }: BlobKey): string {
    if (!/^[0-9a-f-]{36}$/.test(uuid) || !/^[0-9a-f-]{36}$/.test(tenant)) throw new Error(`not a blob key: ${tenant}/${uuid}`);
    return `${this.config.prefix}${tenant}/${uuid}`;
  }

  async create(_em: unknown, key: BlobKey): Promise<BlobWriter> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.connect();
    const writer = new ObjectWriter(
      (body) => new sdk.Upload({ client, params: { Bucket: this.config.bucket, Key, Body: body }, partSize: PART_BYTES, queueSize: 1 }),
    );
    this.writers.set(Key, writer);
    return {
      write: (chunk) => writer.write(chunk),
      close: () => writer.close().finally(() => this.writers.delete(Key)),
    };
  }

  async open(_em: unknown, key: BlobKey): Promise<Readable> {
    const { sdk, client } = await this.connect();
    const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
    return object.Body as Readable;
  }

  async remove(_em: unknown, key: BlobKey): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
  }

  async discard(keys: BlobKey[]): Promise<void> {
    await Promise.all(
      keys.map(async (key) => {
        const Key = this.objectKey(key);
        await this.writers.get(Key)?.abort();
        this.writers.delete(Key);
        await this.remove(undefined, key);
      }),
    );
  }

  private async presign(key: BlobKey, headers: { contentType: string; contentDisposition: string }): Promise<string> {
    const { sdk, client } = await this.connect();
    const command = new sdk.GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.objectKey(key),
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition,
    });
    return sdk.getSignedUrl(client, command, { expiresIn: PRESIGNED_SECONDS });
  }
}
