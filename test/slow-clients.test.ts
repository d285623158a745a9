import { jest } from '@jest/globals';
import { uuidv7 } from '../src/db/uuid.js';
import { pdfBytes, upload } from './support/files.js';
import { openRawConnection, type RawClient } from './support/raw-http.js';
import { provisionClient, requestToken, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

const TRICKLES = 22;
const BOUNDARY = 'slow-client-boundary';
/** What each trickling upload declares as its Content-Length. */
const TRICKLE_BYTES = 10 * 1024 * 1024;

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  service = await startTestService({
    HTTP_BODY_IDLE_TIMEOUT_MS: '1500',
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    // Every trickle holds the bytes it declares: together they fill acme's budget, so one more upload of acme is over it.
    UPLOAD_BYTES_IN_FLIGHT_PER_TENANT: String(TRICKLES * TRICKLE_BYTES),
    UPLOAD_BYTES_IN_FLIGHT: String(2 * TRICKLES * TRICKLE_BYTES),
    UPLOAD_QUEUE_WAIT_MS: '500',
    // All the trickles in progress at once: what is tested here is the upload budget, not the tenant's places.
    REQUESTS_IN_FLIGHT_PER_TENANT: String(2 * TRICKLES),
  });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(() => service.stop());

/** A raw connection that sends `head` and then whatever the test writes, recording the reply. */
const connect = (head: string | Buffer): Promise<RawClient> => openRawConnection(service.url, head);

/** The start of a GraphQL multipart upload: operations, map and the first 2.3 KB of a file that never ends. */
function startUpload(api: ApiClient): Promise<RawClient> {
  const operations = JSON.stringify({ query: 'mutation($files: [Upload!]!) { uploadFiles(files: $files) { uuid } }', variables: { files: [null] } });
  const parts = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.files.0"]}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="0"; filename="slow.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    pdfBytes(undefined, 2300).subarray(0, 2300),
  ]);
  const headers = [
    'POST /graphql HTTP/1.1',
    'Host: credentials.test',
    `Authorization: Bearer ${api.token}`,
    `X-Tenant: ${api.tenant}`,
    'Apollo-Require-Preflight: true',
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${TRICKLE_BYTES}`,
  ];
  return connect(Buffer.concat([Buffer.from(`${headers.join('\r\n')}\r\n\r\n`), parts]));
}

async function sql<T = Record<string, any>>(query: string, params: unknown[] = []): Promise<T[]> {
  return service.orm.em.getConnection().execute(query, params);
}

const withinTenSeconds = () => ({ signal: AbortSignal.timeout(10_000) });

describe('slow clients', () => {
  it('22 trickling GraphQL uploads hold no database connection: readiness, tokens, other tenants and public verification answer; silent, they are cut with 408 and release everything', async () => {
    const [tenant] = await sql<{ uuid: string }>('select uuid from tenants where identifier = ?', ['acme']);
    const trickles = await Promise.all(Array.from({ length: TRICKLES }, () => startUpload(acme)));
    // One byte each, well within the idle timeout: the uploads stay in flight, none completes.
    const dripping = setInterval(() => trickles.forEach((trickle) => trickle.socket.write(' ')), 250);
    try {
      await until(() => trickles.every((trickle) => trickle.socket.bytesWritten > 2300), 'every upload to be sent');
      // Every upload taken in by the server (its bytes reserved) before the probes, however slow the machine.
      const { uploadBudget } = service.runtime.files;
      await until(() => uploadBudget.heldBy(tenant!.uuid) === TRICKLES * TRICKLE_BYTES, 'every upload to hold its bytes');
      const globexClient = await provisionClient(service.orm, 'globex');
      const [ready, token, students, verification, overCap, otherTenant] = await Promise.all([
        fetch(`${service.url}/readyz`, withinTenSeconds()),
        requestToken(service.url, globexClient),
        fetch(`${service.url}/api/v1/students`, { headers: globex.headers(), ...withinTenSeconds() }),
        fetch(`${service.url}/api/v1/verify/${uuidv7()}`, withinTenSeconds()),
        upload(acme, [[pdfBytes(), 'one-too-many.pdf']]),
        upload(globex, [[pdfBytes(), 'other-tenant.pdf']]),
      ]);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
      expect(token.status).toBe(200);
      expect([students.status, ((await students.json()) as any).data]).toEqual([200, []]);
      expect([verification.status, await verification.json()]).toEqual([404, { message: 'Certificate not found.' }]);
      expect([overCap.status, overCap.body, overCap.headers.get('retry-after')]).toEqual([
        429,
        { message: `This tenant's uploads in flight fill its ${(TRICKLES * TRICKLE_BYTES) / 1024 / 1024} MiB; retry when one has finished.` },
        '1',
      ]);
      expect(otherTenant.status).toBe(201);
      // Everything above was answered while every trickle was still open, unanswered and in flight.
      expect(trickles.filter((trickle) => trickle.closed || trickle.reply !== '')).toHaveLength(0);
      expect(service.runtime.files.uploadBudget.heldBy(tenant!.uuid)).toBe(TRICKLES * TRICKLE_BYTES);
      const [open] = await sql<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
      );
      expect(open!.n).toBe(0);
    } finally {
      clearInterval(dripping);
    }

    await until(() => trickles.every((trickle) => trickle.closed), 'the silent uploads to be cut', 15_000);
    for (const trickle of trickles) {
      expect(trickle.reply).toMatch(/^HTTP\/1\.1 408 /);
      expect(trickle.reply).toContain('"code":"REQUEST_TIMEOUT"');
    }
    // Their bytes in flight are free again and nothing of theirs was stored.
    const after = await upload(acme, [[pdfBytes(), 'after.pdf']]);
    expect(after.status).toBe(201);
    const [stored] = await sql<{ n: number }>('select count(*)::int as n from files where tenant_uuid = ?', [tenant!.uuid]);
    expect(stored!.n).toBe(1);
  });

  it('cuts a JSON body that stops arriving with a REST-shaped 408', async () => {
    const body = JSON.stringify({ name: 'Slow Student', email: 'slow@example.org', date_of_birth: '2001-02-03' });
    const client = await connect(
      `POST /api/v1/students HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.token}\r\nX-Tenant: acme\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await until(() => client.closed, 'the silent body to be cut', 15_000);
    expect(client.reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.reply).toContain('{"message":"The request body stopped arriving; send the request again."}');
    expect((await acme.rest('GET', '/students')).body.data).toEqual([]);
  });

  it('closes a connection whose headers do not arrive in time with 408', async () => {
    const client = await connect('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await until(() => client.closed, 'the unfinished headers to be cut', 15_000);
    expect(client.reply).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('keeps a keep-alive connection usable for its next request after a body was read in full', async () => {
    const body = JSON.stringify({ query: '{ viewer { clientId } }' });
    const request = `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.token}\r\nX-Tenant: acme\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const client = await connect(request);
    await until(() => client.reply.includes('clientId'), 'the first answer');
    // Longer than the body idle timeout, shorter than keep-alive: the idle connection is not cut.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(client.closed).toBe(false);
    client.socket.write(request);
    await until(() => client.reply.split('HTTP/1.1 200').length === 3, 'the second answer on the same connection');
    client.socket.destroy();
  });
});
