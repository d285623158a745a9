import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { jest } from '@jest/globals';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ChunkSignatures, EMPTY_SHA256, SigV4Proxy, verifySignature, type SignedRequest, type VerifierOptions } from './support/sigv4-verifier.js';

// The examples of the AWS documentation, "Signature Calculations for the Authorization Header" and
// "Authenticating Requests: Using Query Parameters" (Amazon S3 API reference).
const EXAMPLE_KEY = { id: 'AKIAIOSFODNN7EXAMPLE', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const EXAMPLE_TIME = Date.UTC(2013, 4, 24);
const EXAMPLE: VerifierOptions = { keys: { [EXAMPLE_KEY.id]: EXAMPLE_KEY.secret }, region: 'us-east-1', now: () => EXAMPLE_TIME };
const CREDENTIAL = `Credential=${EXAMPLE_KEY.id}/20130524/us-east-1/s3/aws4_request`;
const HOST: [string, string] = ['Host', 'examplebucket.s3.amazonaws.com'];

const examples: [string, SignedRequest][] = [
  [
    'GET object',
    {
      method: 'GET',
      url: '/test.txt',
      headers: [
        HOST,
        ['Range', 'bytes=0-9'],
        ['x-amz-content-sha256', EMPTY_SHA256],
        ['x-amz-date', '20130524T000000Z'],
        [
          'Authorization',
          `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41`,
        ],
      ],
    },
  ],
  [
    'PUT object',
    {
      method: 'PUT',
      url: '/test%24file.text',
      headers: [
        HOST,
        ['Date', 'Fri, 24 May 2013 00:00:00 GMT'],
        ['x-amz-date', '20130524T000000Z'],
        ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
        ['x-amz-content-sha256', '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072'],
        [
          'Authorization',
          `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd`,
        ],
      ],
    },
  ],
  [
    'GET bucket lifecycle',
    {
      method: 'GET',
      url: '/?lifecycle',
      headers: [
        HOST,
        ['x-amz-date', '20130524T000000Z'],
        ['x-amz-content-sha256', EMPTY_SHA256],
        [
          'Authorization',
          `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543`,
        ],
      ],
    },
  ],
  [
    'GET bucket (list objects)',
    {
      method: 'GET',
      url: '/?max-keys=2&prefix=J',
      headers: [
        HOST,
        ['x-amz-date', '20130524T000000Z'],
        ['x-amz-content-sha256', EMPTY_SHA256],
        [
          'Authorization',
          `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7`,
        ],
      ],
    },
  ],
  [
    'presigned GET object',
    {
      method: 'GET',
      url:
        '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      headers: [HOST],
    },
  ],
];

/** The request with one character of its signature changed. */
function tampered(request: SignedRequest): SignedRequest {
  const flip = (text: string) => text.replace(/([Ss]ignature=[0-9a-f]{63})([0-9a-f])/, (_, head: string, last: string) => head + (last === '0' ? '1' : '0'));
  return { ...request, url: flip(request.url), headers: request.headers.map(([name, value]) => [name, flip(value)]) };
}

describe('the known answers of the AWS documentation', () => {
  it.each(examples)('%s verifies, and not with one character of the signature changed, nor with another secret', (_, request) => {
    expect(verifySignature(request, EXAMPLE)).toMatchObject({ ok: true, keyId: EXAMPLE_KEY.id });
    expect(verifySignature(tampered(request), EXAMPLE)).toMatchObject({ ok: false, status: 403, code: 'SignatureDoesNotMatch' });
    expect(verifySignature(request, { ...EXAMPLE, keys: { [EXAMPLE_KEY.id]: `${EXAMPLE_KEY.secret}x` } })).toMatchObject({
      ok: false,
      code: 'SignatureDoesNotMatch',
    });
  });

  it('refuses the presigned example after its 86400 s, an unknown key, a changed header, and an unsigned x-amz header', () => {
    const [, presigned] = examples[4]!;
    expect(verifySignature(presigned, { ...EXAMPLE, now: () => EXAMPLE_TIME + 86_400_000 })).toMatchObject({ ok: true });
    expect(verifySignature(presigned, { ...EXAMPLE, now: () => EXAMPLE_TIME + 86_401_000 })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
    expect(verifySignature(presigned, { ...EXAMPLE, keys: { OTHER: EXAMPLE_KEY.secret } })).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    const [, get] = examples[0]!;
    const range = (value: string): SignedRequest => ({ ...get, headers: get.headers.map(([name, old]) => [name, name === 'Range' ? value : old]) });
    expect(verifySignature(range('bytes=0-10'), EXAMPLE)).toMatchObject({ code: 'SignatureDoesNotMatch' });
    // Whitespace around and inside a value is not signed.
    expect(verifySignature(range('  bytes=0-9 '), EXAMPLE)).toMatchObject({ ok: true });
    expect(verifySignature({ ...get, headers: [...get.headers, ['x-amz-meta-owner', 'someone']] }, EXAMPLE)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    // Header-signed requests must be within 15 minutes of the server's clock.
    expect(verifySignature(get, { ...EXAMPLE, now: () => EXAMPLE_TIME + 16 * 60_000 })).toMatchObject({ status: 403, code: 'RequestTimeTooSkewed' });
    // The same request against another region.
    expect(verifySignature(get, { ...EXAMPLE, region: 'eu-west-1' })).toMatchObject({ status: 400, code: 'AuthorizationHeaderMalformed' });
  });
});

// The example of "Transferring Payload in Multiple Chunks": 66560 bytes of 'a' in chunks of 64 KiB, 1 KiB and 0.
const CHUNKED: SignedRequest = {
  method: 'PUT',
  url: '/examplebucket/chunkObject.txt',
  headers: [
    ['Host', 's3.amazonaws.com'],
    ['x-amz-date', '20130524T000000Z'],
    ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
    [
      'Authorization',
      `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9`,
    ],
    ['x-amz-content-sha256', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD'],
    ['Content-Encoding', 'aws-chunked'],
    ['x-amz-decoded-content-length', '66560'],
    ['Content-Length', '66824'],
  ],
};
const chunk = (size: number, signature: string) =>
  Buffer.concat([Buffer.from(`${size.toString(16)};chunk-signature=${signature}\r\n`), Buffer.alloc(size, 'a'), Buffer.from('\r\n')]);
const CHUNKED_BODY = Buffer.concat([
  chunk(65536, 'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648'),
  chunk(1024, '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497'),
  chunk(0, 'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9'),
]);

describe('the chunked upload example of the AWS documentation (STREAMING-AWS4-HMAC-SHA256-PAYLOAD)', () => {
  const [request, body] = [CHUNKED, CHUNKED_BODY];

  /** The body fed in pieces of `size` bytes: the first error, or that of the end. */
  function check(bytes: Buffer, size: number, seed = verifySignature(request, EXAMPLE)): string | undefined {
    if (!seed.ok || !seed.seed) throw new Error('no seed');
    const chunks = new ChunkSignatures(seed.seed);
    for (let at = 0; at < bytes.length; at += size) {
      const wrong = chunks.feed(bytes.subarray(at, at + size));
      if (wrong) return wrong;
    }
    return chunks.end();
  }

  it('verifies the seed signature and each chunk, fed in any pieces; a changed byte, a cut body or another secret fail', () => {
    expect(body.length).toBe(66824);
    expect(verifySignature(request, EXAMPLE)).toMatchObject({ ok: true, mode: 'streaming' });
    for (const size of [1, 7, 1000, body.length]) expect(check(body, size)).toBeUndefined();
    const changed = Buffer.from(body);
    changed[66_700] = 'b'.charCodeAt(0); // in the second chunk's data
    expect(check(changed, 4096)).toBe('chunk signature does not match');
    expect(check(body.subarray(0, body.length - 2), 4096)).toBe('the body ended before its last chunk');
    expect(check(Buffer.concat([body, Buffer.from('x')]), 4096)).toBe('data after the last chunk');
    expect(verifySignature(request, { ...EXAMPLE, keys: { [EXAMPLE_KEY.id]: 'another' } })).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });
});

/** What the SDK sends for a command, caught before it leaves. */
async function sent(client: S3Client, command: object): Promise<SignedRequest> {
  let caught: SignedRequest | undefined;
  client.config.requestHandler = {
    handle: async (request: { method: string; path: string; query?: Record<string, string | string[] | null>; headers: Record<string, string> }) => {
      const query = Object.entries(request.query ?? {})
        .flatMap(([name, value]) =>
          (Array.isArray(value) ? value : [value]).map((one) =>
            one == null ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(one)}`,
          ),
        )
        .join('&');
      caught = { method: request.method, url: request.path + (query ? `?${query}` : ''), headers: Object.entries(request.headers) };
      throw new Error('caught');
    },
  } as never;
  // The SDK warns of a streaming request that fails; here it is meant to.
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    await expect(client.send(command as never)).rejects.toThrow('caught');
  } finally {
    warn.mockRestore();
  }
  return caught!;
}

describe('requests signed by the AWS SDK in node_modules (samples, not the verifier)', () => {
  const key = { accessKeyId: 'SAMPLEKEY', secretAccessKey: 'sample/secret+key' };
  const options: VerifierOptions = { keys: { [key.accessKeyId]: key.secretAccessKey }, region: 'eu-central-1' };
  const client = (extra: object = {}) =>
    new S3Client({ endpoint: 'http://127.0.0.1:9000', region: 'eu-central-1', forcePathStyle: true, credentials: key, maxAttempts: 1, ...extra });
  const odd = "prefix/a key with spaces, ü, + and ~!*'()$&=;:@/x";

  it('verifies every payload mode the SDK sends, and a request signed with another secret is refused', async () => {
    const service = client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const buffered = await sent(service, new PutObjectCommand({ Bucket: 'b', Key: odd, Body: Buffer.from('content') }));
    expect(verifySignature(buffered, options)).toMatchObject({
      ok: true,
      form: 'header',
      mode: 'sha256',
      payloadHash: createHash('sha256').update('content').digest('hex'),
    });
    const streamed = await sent(service, new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Readable.from([Buffer.from('content')]), ContentLength: 7 }));
    expect(verifySignature(streamed, options)).toMatchObject({ ok: true, mode: 'unsigned' });
    const read = await sent(service, new GetObjectCommand({ Bucket: 'b', Key: odd, Range: 'bytes=0-1' }));
    expect(verifySignature(read, options)).toMatchObject({ ok: true, mode: 'empty' });
    const listed = await sent(service, new ListObjectsV2Command({ Bucket: 'b', Prefix: 'a b/ü', ContinuationToken: 'x+y/z=' }));
    expect(verifySignature(listed, options)).toMatchObject({ ok: true });
    // The SDK's default checksums: CRC32 in an x-amz header, or a stream sent aws-chunked with a trailer.
    const checksummed = client();
    expect(verifySignature(await sent(checksummed, new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Buffer.from('content') })), options)).toMatchObject({
      ok: true,
    });
    const chunked = await sent(checksummed, new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Readable.from([Buffer.from('content')]), ContentLength: 7 }));
    expect(verifySignature(chunked, options)).toMatchObject({ ok: true, mode: 'streaming', payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' });

    const wrong = client({ credentials: { ...key, secretAccessKey: 'not the secret' }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    for (const command of [new PutObjectCommand({ Bucket: 'b', Key: odd, Body: Buffer.from('content') }), new GetObjectCommand({ Bucket: 'b', Key: 'k' })])
      expect(verifySignature(await sent(wrong, command), options)).toMatchObject({ ok: false, status: 403, code: 'SignatureDoesNotMatch' });
    // Another path, the same signature.
    expect(verifySignature({ ...read, url: read.url.replace('prefix/', 'prefix2/') }, options)).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('verifies a presigned URL with response headers until it expires', async () => {
    const now = Date.now();
    const command = new GetObjectCommand({
      Bucket: 'b',
      Key: odd,
      ResponseContentDisposition: `inline; filename*=UTF-8''Zeugnis%20M%C3%BCller.pdf`,
      ResponseContentType: 'application/pdf',
    });
    const url = new URL(await getSignedUrl(client(), command, { expiresIn: 300 }));
    const request: SignedRequest = { method: 'GET', url: url.pathname + url.search, headers: [['host', url.host]] };
    expect(verifySignature(request, { ...options, now: () => now + 299_000 })).toMatchObject({ ok: true, form: 'query', mode: 'unsigned' });
    expect(verifySignature(request, { ...options, now: () => now + 302_000 })).toMatchObject({
      ok: false,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
    expect(verifySignature(tampered(request), options)).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(verifySignature({ ...request, headers: [['host', 'elsewhere:9000']] }, options)).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
  });
});

describe('the verifying proxy', () => {
  it('passes a body whose hash matches, and fails one that does not before the store has all of it', async () => {
    const received: { bytes: number; complete: boolean }[] = [];
    const store = http.createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('close', () => received.push({ bytes, complete: request.complete }));
      request.on('end', () => response.end('stored'));
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    const proxy = await SigV4Proxy.open(`http://127.0.0.1:${(store.address() as AddressInfo).port}`, {
      keys: { KEY: 'SECRET', [EXAMPLE_KEY.id]: EXAMPLE_KEY.secret },
      region: 'us-east-1',
    });
    try {
      const s3 = new S3Client({
        endpoint: proxy.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'KEY', secretAccessKey: 'SECRET' },
        maxAttempts: 1,
      });
      const body = Buffer.alloc(300_000, 1);
      // A request signed for one body and sent with another of the same length.
      const signed = await sent(s3, new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: body }));
      s3.destroy();
      const put = (bytes: Buffer) =>
        fetch(proxy.endpoint + signed.url, {
          method: 'PUT',
          headers: signed.headers.filter(([name]) => !['host', 'content-length'].includes(name.toLowerCase())),
          body: new Uint8Array(bytes),
        }).then(async (response) => ({
          status: response.status,
          text: await response.text(),
        }));
      expect(await put(body)).toEqual({ status: 200, text: 'stored' });
      expect(await put(Buffer.alloc(300_000, 2))).toMatchObject({ status: 400, text: expect.stringContaining('<Code>XAmzContentSHA256Mismatch</Code>') });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toEqual([
        { bytes: 300_000, complete: true },
        { bytes: expect.any(Number), complete: false },
      ]);
      expect(received[1]!.bytes).toBeLessThan(300_000);
      expect(proxy.verified.sha256).toBe(1);
      expect(proxy.takeRefusals().map((refusal) => refusal.code)).toEqual(['XAmzContentSHA256Mismatch']);

      // The chunked example, on the proxy's clock set back to its day: passed whole; with a byte changed, refused before its end.
      proxy.clockOffsetMs = EXAMPLE_TIME - Date.now();
      const chunked = (bytes: Buffer) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const target = new URL(proxy.endpoint);
          const sending = http.request({
            host: target.hostname,
            port: target.port,
            method: 'PUT',
            path: CHUNKED.url,
            headers: Object.fromEntries(CHUNKED.headers),
          });
          sending.on('response', async (response) => resolve({ status: response.statusCode!, text: (await response.toArray()).join('') }));
          sending.on('error', reject);
          sending.end(bytes);
        });
      expect(await chunked(CHUNKED_BODY)).toEqual({ status: 200, text: 'stored' });
      const changed = Buffer.from(CHUNKED_BODY);
      changed[100] = 'b'.charCodeAt(0);
      expect(await chunked(changed)).toMatchObject({ status: 403, text: expect.stringContaining('<Code>SignatureDoesNotMatch</Code>') });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The refused body reached the store in part or not at all (its first chunk failed before a byte went on).
      expect(received[2]).toEqual({ bytes: CHUNKED_BODY.length, complete: true });
      expect(received.slice(3).filter((one) => one.complete)).toEqual([]);
      expect([proxy.verified.streaming, proxy.bodies]).toEqual([1, 2]);
      expect(proxy.takeRefusals().map((refusal) => refusal.message)).toEqual(['aws-chunked body: chunk signature does not match']);
    } finally {
      await proxy.close();
      store.closeAllConnections();
      await new Promise((resolve) => store.close(resolve));
    }
  });
});
