import { createHash, createHmac, timingSafeEqual, type Hash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An AWS Signature Version 4 verifier for S3 requests, written from the specification
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html), independent
 * of the SDK's signer: the tests put it in front of s3rver, which checks the access key but not V4
 * signatures, so that a request signed with a wrong secret is refused as S3 refuses it.
 *
 * Covered: the `Authorization` header form and the presigned query form (`X-Amz-*`, with expiry);
 * payload hashes `UNSIGNED-PAYLOAD`, a hex SHA-256 (checked against the body by the proxy while it
 * streams) and the `STREAMING-*` aws-chunked modes: the seed signature in the header, and for
 * STREAMING-AWS4-HMAC-SHA256-PAYLOAD each chunk's signature (a trailer's checksum and signature are
 * not checked). The SDK as the service configures it sends hex hashes and, presigned, UNSIGNED-PAYLOAD.
 */

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** S3's allowed difference between a header-signed request's time and the server's. */
const SKEW_MS = 15 * 60 * 1000;
/** The longest a presigned URL may live (7 days). */
const MAX_EXPIRES_SECONDS = 604_800;

export interface SignedRequest {
  method: string;
  /** Path and query exactly as on the request line (`/bucket/key?x=1`). */
  url: string;
  /** Name and value pairs as received (Node's `rawHeaders` flattened, or pairs). */
  headers: [string, string][];
}

export interface VerifierOptions {
  /** Access key id -> secret access key. */
  keys: Record<string, string>;
  region: string;
  service?: string;
  /** The server's clock (ms since the epoch). */
  now?: () => number;
}

/** How the payload is signed, from `x-amz-content-sha256` (or UNSIGNED-PAYLOAD for a presigned URL without it). */
export type PayloadMode = 'empty' | 'sha256' | 'unsigned' | 'streaming';

/** What checking the chunk signatures of STREAMING-AWS4-HMAC-SHA256-PAYLOAD needs: each chunk chains on the signature before it. */
export interface ChunkSeed {
  signature: string;
  key: Buffer;
  amzDate: string;
  scope: string;
}

export type Verdict =
  | { ok: true; keyId: string; form: 'header' | 'query'; payloadHash: string; mode: PayloadMode; seed?: ChunkSeed }
  | { ok: false; status: number; code: string; message: string };

function refuse(status: number, code: string, message: string): Verdict {
  return { ok: false, status, code, message };
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The key of one day, region and service: HMAC chain over `AWS4<secret>`. */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/** AWS's URI encoding: every byte but A-Z a-z 0-9 - . _ ~ as %XY (upper case); `/` kept when `slash`. */
export function uriEncode(value: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')) out += char;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The path as S3 canonicalizes it: each segment decoded and encoded once (S3 does not encode twice nor normalize `.`/`//`). */
export function canonicalUri(path: string): string {
  return path
    .split('/')
    .map((segment) => uriEncode(decode(segment)))
    .join('/');
}

/** Query parameters decoded, each name and value encoded, sorted by name then value; `X-Amz-Signature` left out. */
export function canonicalQuery(query: string, leaveOut?: string): string {
  if (!query) return '';
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (!part) continue;
    const at = part.indexOf('=');
    const [name, value] = at < 0 ? [part, ''] : [part.slice(0, at), part.slice(at + 1)];
    const decoded = decode(name);
    if (leaveOut && decoded === leaveOut) continue;
    pairs.push([uriEncode(decoded), uriEncode(decode(value))]);
  }
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

/** Header values by lower-case name; repeated headers joined with `,`, values trimmed, inner runs of spaces made one. */
function headerMap(headers: [string, string][]): Map<string, string> {
  const map = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const values = map.get(key) ?? [];
    values.push(value.trim().replace(/\s+/g, ' '));
    map.set(key, values);
  }
  return new Map([...map].map(([name, values]) => [name, values.join(',')]));
}

export function canonicalRequest(method: string, url: string, headers: Map<string, string>, signed: string[], payloadHash: string, leaveOut?: string): string {
  const at = url.indexOf('?');
  const [path, query] = at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)];
  return [
    method.toUpperCase(),
    canonicalUri(path || '/'),
    canonicalQuery(query, leaveOut),
    ...signed.map((name) => `${name}:${headers.get(name) ?? ''}`),
    '',
    signed.join(';'),
    payloadHash,
  ].join('\n');
}

function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** `20130524T000000Z` as ms since the epoch, or NaN. */
function amzTime(value: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return NaN;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function payloadMode(hash: string): PayloadMode | undefined {
  if (hash === EMPTY_SHA256) return 'empty';
  if (/^[0-9a-f]{64}$/.test(hash)) return 'sha256';
  if (hash === UNSIGNED_PAYLOAD) return 'unsigned';
  if (/^STREAMING-(AWS4-HMAC-SHA256-PAYLOAD|UNSIGNED-PAYLOAD-TRAILER|AWS4-HMAC-SHA256-PAYLOAD-TRAILER)$/.test(hash)) return 'streaming';
  return undefined;
}

/** Checks one request's signature (not its body: a `sha256` payload hash is for the caller to compare with the body). */
export function verifySignature(request: SignedRequest, options: VerifierOptions): Verdict {
  const service = options.service ?? 's3';
  const now = (options.now ?? Date.now)();
  const headers = headerMap(request.headers);
  const query = new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '');
  const authorization = headers.get('authorization');
  const presigned = query.has('X-Amz-Algorithm');
  if (authorization && presigned) return refuse(400, 'InvalidArgument', 'Only one auth mechanism allowed');

  let credential: string, signedList: string, signature: string, amzDate: string, payloadHash: string;
  let form: 'header' | 'query';
  if (presigned) {
    form = 'query';
    if (query.get('X-Amz-Algorithm') !== ALGORITHM) return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    const missing = ['X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'].filter((name) => !query.has(name));
    if (missing.length) return refuse(400, 'AuthorizationQueryParametersError', `missing ${missing.join(', ')}`);
    [credential, signedList, signature, amzDate] = ['X-Amz-Credential', 'X-Amz-SignedHeaders', 'X-Amz-Signature', 'X-Amz-Date'].map((name) =>
      query.get(name)!,
    ) as [string, string, string, string];
    const expires = query.get('X-Amz-Expires')!;
    if (!/^\d+$/.test(expires) || Number(expires) > MAX_EXPIRES_SECONDS)
      return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be a number of seconds up to 604800');
    const issued = amzTime(amzDate);
    if (Number.isNaN(issued)) return refuse(400, 'AuthorizationQueryParametersError', "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
    if (issued - now > SKEW_MS) return refuse(403, 'AccessDenied', 'Request is not valid yet');
    if (now > issued + Number(expires) * 1000) return refuse(403, 'AccessDenied', 'Request has expired');
    payloadHash = headers.get('x-amz-content-sha256') ?? UNSIGNED_PAYLOAD;
  } else if (authorization) {
    form = 'header';
    const match = /^AWS4-HMAC-SHA256 +Credential=([^,\s]+), *SignedHeaders=([^,\s]+), *Signature=([0-9a-f]+)$/.exec(authorization);
    if (!match) return refuse(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
    [, credential, signedList, signature] = match as unknown as [string, string, string, string];
    const date = headers.get('x-amz-date');
    if (date) amzDate = date;
    else {
      const parsed = Date.parse(headers.get('date') ?? '');
      if (Number.isNaN(parsed)) return refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
      amzDate = new Date(parsed).toISOString().replace(/[-:]|\.\d{3}/g, '');
    }
    const time = amzTime(amzDate);
    if (Number.isNaN(time)) return refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    if (Math.abs(time - now) > SKEW_MS)
      return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    const hash = headers.get('x-amz-content-sha256');
    if (!hash) return refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    payloadHash = hash;
  } else {
    return refuse(403, 'AccessDenied', 'Anonymous access is not allowed');
  }

  const mode = payloadMode(payloadHash);
  if (!mode) return refuse(400, 'InvalidArgument', `x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-… or a SHA-256 in hex, not "${payloadHash}"`);
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return refuse(400, 'AuthorizationHeaderMalformed', `malformed credential "${credential}"`);
  const [keyId, date, region, scopeService] = parts as [string, string, string, string];
  const secret = Object.hasOwn(options.keys, keyId) ? options.keys[keyId] : undefined;
  if (secret === undefined) return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (date !== amzDate.slice(0, 8))
    return refuse(400, 'AuthorizationHeaderMalformed', `the credential date ${date} is not the request's ${amzDate.slice(0, 8)}`);
  if (region !== options.region) return refuse(400, 'AuthorizationHeaderMalformed', `the region '${region}' is wrong; expecting '${options.region}'`);
  if (scopeService !== service) return refuse(400, 'AuthorizationHeaderMalformed', `the service '${scopeService}' is wrong; expecting '${service}'`);

  const signed = signedList.split(';');
  if (signed.some((name, index) => name !== name.toLowerCase() || (index > 0 && signed[index - 1]! >= name)))
    return refuse(400, 'AuthorizationHeaderMalformed', 'SignedHeaders must be lower case, sorted and without repeats');
  if (!signed.includes('host')) return refuse(400, 'AuthorizationHeaderMalformed', 'the host header must be signed');
  const missing = signed.filter((name) => !headers.has(name));
  if (missing.length) return refuse(403, 'SignatureDoesNotMatch', `signed header(s) not in the request: ${missing.join(', ')}`);
  // S3 refuses x-amz-* headers that are not signed (but for the signature itself in a header form).
  const unsigned = [...headers.keys()].filter((name) => name.startsWith('x-amz-') && !signed.includes(name));
  if (unsigned.length) return refuse(403, 'AccessDenied', `There were headers present in the request which were not signed: ${unsigned.join(', ')}`);
  if (form === 'header' && !signed.includes('x-amz-content-sha256')) return refuse(403, 'AccessDenied', 'x-amz-content-sha256 must be signed');

  const canonical = canonicalRequest(request.method, request.url, headers, signed, payloadHash, form === 'query' ? 'X-Amz-Signature' : undefined);
  const scope = `${date}/${region}/${service}/aws4_request`;
  const key = signingKey(secret, date, region, service);
  const expected = createHmac('sha256', key)
    .update(stringToSign(amzDate, scope, canonical), 'utf8')
    .digest('hex');
  if (!sameHex(expected, signature))
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  const seed = payloadHash === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' ? { signature, key, amzDate, scope } : undefined;
  return { ok: true, keyId, form, payloadHash, mode, ...(seed && { seed }) };
}

/**
 * Reads an aws-chunked body (`<hex size>;chunk-signature=<sig>\r\n<data>\r\n`, …, a last chunk of
 * size 0) and checks each chunk's signature, chained from the seed signature of the header. Chunk
 * data is hashed as it comes, never held. `feed` and `end` answer an error message, or undefined.
 */
export class ChunkSignatures {
  private previous: string;
  private line = '';
  private state: 'header' | 'data' | 'crlf' | 'done' = 'header';
  private remaining = 0;
  private last = false;
  private expected = '';
  private hash = createHash('sha256');
  private failed?: string;
  /** Bytes of data (without the framing) read so far. */
  decoded = 0;

  constructor(private readonly seed: ChunkSeed) {
    this.previous = seed.signature;
  }

  feed(bytes: Buffer): string | undefined {
    let at = 0;
    while (!this.failed && at < bytes.length) {
      if (this.state === 'done') {
        this.failed = 'data after the last chunk';
      } else if (this.state === 'header') {
        const end = bytes.indexOf(0x0a, at);
        this.line += bytes.toString('latin1', at, end < 0 ? bytes.length : end + 1);
        at = end < 0 ? bytes.length : end + 1;
        if (this.line.length > 200) this.failed = 'chunk header too long';
        else if (end >= 0) {
          const match = /^([0-9a-fA-F]{1,16});chunk-signature=([0-9a-f]{64})\r\n$/.exec(this.line);
          this.line = '';
          if (!match) this.failed = 'malformed chunk header';
          else {
            this.remaining = parseInt(match[1]!, 16);
            this.last = this.remaining === 0;
            this.expected = match[2]!;
            this.hash = createHash('sha256');
            this.state = 'data';
            if (this.last) this.signed();
          }
        }
      } else if (this.state === 'data') {
        const take = Math.min(this.remaining, bytes.length - at);
        this.hash.update(bytes.subarray(at, at + take));
        this.decoded += take;
        this.remaining -= take;
        at += take;
        if (this.remaining === 0) this.signed();
      } else {
        const take = Math.min(2 - this.line.length, bytes.length - at);
        this.line += bytes.toString('latin1', at, at + take);
        at += take;
        if (this.line.length === 2) {
          if (this.line !== '\r\n') this.failed = 'chunk data not followed by CRLF';
          this.line = '';
          this.state = this.last ? 'done' : 'header';
        }
      }
    }
    return this.failed;
  }

  end(): string | undefined {
    return this.failed ?? (this.state === 'done' ? undefined : 'the body ended before its last chunk');
  }

  /** The chunk's data is all read: its signature is checked, then its CRLF is due. */
  private signed(): void {
    const toSign = ['AWS4-HMAC-SHA256-PAYLOAD', this.seed.amzDate, this.seed.scope, this.previous, EMPTY_SHA256, this.hash.digest('hex')].join('\n');
    const signature = createHmac('sha256', this.seed.key).update(toSign, 'utf8').digest('hex');
    if (!sameHex(signature, this.expected)) this.failed = 'chunk signature does not match';
    this.previous = this.expected;
    this.state = 'crlf';
  }
}

/** S3's error document. */
export function errorXml(code: string, message: string, resource = ''): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escape(code)}</Code><Message>${escape(message)}</Message><Resource>${escape(resource)}</Resource><RequestId>sigv4-verifier</RequestId></Error>`;
}

export interface Refusal {
  method: string;
  url: string;
  status: number;
  code: string;
  message: string;
}

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let index = 0; index < raw.length; index += 2) out.push([raw[index]!, raw[index + 1]!]);
  return out;
}

/**
 * An HTTP proxy in front of a store that lets through only requests whose V4 signature verifies.
 * Headers are checked before any byte goes on (a `100-continue` is answered only then); a body with a
 * hex payload hash is hashed while it streams, its last chunk held back until the hash matched, so
 * a mismatch fails the request before the store sees the whole body.
 */
export class SigV4Proxy {
  private readonly server: http.Server;
  private readonly agent = new http.Agent({ keepAlive: true });
  /** Requests whose signature verified, by payload mode; `bodies` of them had their SHA-256 compared or their chunk signatures checked. */
  readonly verified: Record<PayloadMode, number> = { empty: 0, sha256: 0, unsigned: 0, streaming: 0 };
  bodies = 0;
  /** Requests that asked `Expect: 100-continue`, answered only once their headers verified. */
  continued = 0;
  private refused: Refusal[] = [];
  /** Added to the clock, to see presigned URLs expire. */
  clockOffsetMs = 0;

  private constructor(
    private readonly target: URL,
    private readonly options: VerifierOptions,
  ) {
    const handle = (request: http.IncomingMessage, response: http.ServerResponse) => this.handle(request, response);
    this.server = http.createServer(handle);
    this.server.on('checkContinue', (request, response) => this.handle(request, response, true));
  }

  static async open(target: string, options: VerifierOptions): Promise<SigV4Proxy> {
    const proxy = new SigV4Proxy(new URL(target), options);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Verified requests, all modes. */
  get total(): number {
    return Object.values(this.verified).reduce((sum, count) => sum + count, 0);
  }

  /** The refusals since the last call. */
  takeRefusals(): Refusal[] {
    const refused = this.refused;
    this.refused = [];
    return refused;
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse, expectsContinue = false): void {
    const { method = 'GET', url = '/' } = request;
    const verdict = verifySignature(
      { method, url, headers: pairs(request.rawHeaders) },
      { ...this.options, now: () => (this.options.now ?? Date.now)() + this.clockOffsetMs },
    );
    if (!verdict.ok) return this.refuse(request, response, verdict.status, verdict.code, verdict.message);
    if (expectsContinue) {
      this.continued += 1;
      response.writeContinue();
    }

    const headers = { ...request.headers };
    delete headers.expect;
    const upstream = http.request({ host: this.target.hostname, port: this.target.port, method, path: url, headers, agent: this.agent });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
    let refusedLate = false;
    upstream.on('error', () => {
      if (!refusedLate) response.destroy();
    });
    // A client that goes away (a cut connection) takes its upstream request with it, unfinished.
    request.on('close', () => {
      if (!request.complete) upstream.destroy();
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });

    // A body checked as it streams has its last piece held back until it passed, so a store never completes a body that fails.
    const hash: Hash | undefined = verdict.mode === 'sha256' || verdict.mode === 'empty' ? createHash('sha256') : undefined;
    const chunks = verdict.seed && new ChunkSignatures(verdict.seed);
    const checked = hash ?? chunks;
    let held: Buffer | undefined;
    const fail = (status: number, code: string, message: string) => {
      refusedLate = true;
      upstream.destroy();
      this.refuse(request, response, status, code, message);
    };
    // Backpressure: the client is read no faster than the store takes the bytes.
    const forward = (bytes: Buffer) => {
      if (upstream.write(bytes)) return;
      request.pause();
      upstream.once('drain', () => request.resume());
    };
    request.on('data', (chunk: Buffer) => {
      if (refusedLate) return;
      hash?.update(chunk);
      const wrong = chunks?.feed(chunk);
      if (wrong) return fail(403, 'SignatureDoesNotMatch', `aws-chunked body: ${wrong}`);
      if (!checked) return forward(chunk);
      if (held) forward(held);
      held = chunk;
    });
    request.on('end', () => {
      if (refusedLate) return;
      if (hash && hash.digest('hex') !== verdict.payloadHash)
        return fail(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
      const wrong = chunks?.end();
      if (wrong) return fail(403, 'SignatureDoesNotMatch', `aws-chunked body: ${wrong}`);
      if (checked) this.bodies += 1;
      if (held) upstream.write(held);
      this.verified[verdict.mode] += 1;
      upstream.end();
    });
  }

  private refuse(request: http.IncomingMessage, response: http.ServerResponse, status: number, code: string, message: string): void {
    const { method = 'GET', url = '/' } = request;
    this.refused.push({ method, url, status, code, message });
    // The body is read and dropped, so that a client still sending it reads the answer rather than a reset.
    request.resume();
    if (response.headersSent) return void response.destroy();
    const body = method === 'HEAD' ? '' : errorXml(code, message, url.split('?')[0]);
    response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), 'x-amz-request-id': 'sigv4-verifier' });
    response.end(body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    this.agent.destroy();
  }
}
