import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { SigV4Proxy } from './sigv4-verifier.js';

/** s3rver's built-in account. */
export const S3_KEY = { id: 'S3RVER', secret: 'S3RVER' };

export interface TestObjectStore {
  /** Where the store answers: a verifier of AWS Signature V4 in front of s3rver (which does not check V4 signatures). */
  endpoint: string;
  /** Counts what it verified and keeps what it refused (`takeRefusals`). */
  verifier: SigV4Proxy;
  bucket: string;
  /** The variables that point the service at this store (through `endpoint`, e.g. a FlakyLink's). */
  env(endpoint?: string, prefix?: string): Record<string, string>;
  /** Every object key in the bucket. */
  keys(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * A real S3 implementation (s3rver, objects on disk) on a free loopback port, with one bucket, behind
 * a proxy that lets through only requests whose AWS Signature V4 verifies with S3_KEY's secret.
 */
export async function startObjectStore(bucket = 'credentials'): Promise<TestObjectStore> {
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const verifier = await SigV4Proxy.open(`http://127.0.0.1:${port}`, { keys: { [S3_KEY.id]: S3_KEY.secret }, region: 'us-east-1' });
  const endpoint = verifier.endpoint;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: S3_KEY.id, secretAccessKey: S3_KEY.secret } });
  return {
    endpoint,
    verifier,
    bucket,
    env: (through = endpoint, prefix = 'test/') => ({
      S3_ENDPOINT: through,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: S3_KEY.id,
      S3_SECRET_ACCESS_KEY: S3_KEY.secret,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: prefix,
    }),
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async stop() {
      client.destroy();
      await verifier.close();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP relay in front of the store that can fail like a network or a dying server: `breakAfter(n)`
 * cuts every connection once n more bytes went towards the store, and refuses new ones until `heal()`.
 */
export class FlakyLink {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private budget = Infinity;
  private broken = false;
  /** Bytes relayed towards the store since the last `breakAfter`. */
  sent = 0;

  private constructor(target: URL) {
    this.server = net.createServer((client) => {
      if (this.broken) return client.destroy();
      const upstream = net.connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', (chunk: Buffer) => {
        this.sent += chunk.length;
        if (this.sent > this.budget) return this.cut();
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  static async open(endpoint: string): Promise<FlakyLink> {
    const link = new FlakyLink(new URL(endpoint));
    await new Promise<void>((resolve) => link.server.listen(0, '127.0.0.1', resolve));
    return link;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  breakAfter(bytes: number): void {
    this.sent = 0;
    this.budget = bytes;
  }

  heal(): void {
    this.broken = false;
    this.budget = Infinity;
  }

  private cut(): void {
    this.broken = true;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
