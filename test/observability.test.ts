import { createLogger } from '../src/logger.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const INFO = 30;
const WARN = 40;

let service: TestService;
let acme: ApiClient;
const log: string[] = [];
const lines = () => log.map((line) => JSON.parse(line) as LogLine);
const requestLines = (route: string) => lines().filter((line) => line.route === route);

beforeAll(async () => {
  service = await startTestService({}, undefined, createLogger('info', { write: (line: string) => log.push(line) }));
  acme = await signIn(service, 'acme');
});
afterAll(() => service.stop());

describe('request logs', () => {
  it('name the route template, status, tenant and client, and never the query string, headers or body', async () => {
    await factories(acme).student({ name: 'Maria Oliveira', email: 'maria.oliveira@example.edu' });
    log.length = 0;
    const found = await acme.rest('GET', '/students?where[email]=maria.oliveira@example.edu');
    expect(found.body.data).toHaveLength(1);

    const [line, ...more] = requestLines('/api/v1/students');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: INFO, method: 'GET', status: 200, tenant: 'acme', clientId: expect.stringMatching(/^client_/) });
    expect(line!.durationMs).toEqual(expect.any(Number));
    expect(line!.requestId).toBe(found.headers.get('x-request-id'));
    const text = log.join('');
    expect(text).not.toContain('example.edu');
    expect(text).not.toContain('Maria');
    expect(text).not.toContain(acme.token);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text.toLowerCase()).not.toContain('user-agent');
  });

  it('name the GraphQL operation and its error codes, at warn level although the status is 200', async () => {
    log.length = 0;
    const answer = await acme.graphql('query MissingInstitution { institution(uuid: "0190d3b4-0000-7000-8000-000000000000") { uuid } }');
    expect(answer.status).toBe(200);
    expect(answer.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const ok = await acme.graphql('query Institutions { institutions(first: 1) { totalCount } }');
    expect(ok.body.errors).toBeUndefined();

    expect(requestLines('/graphql')).toEqual([
      expect.objectContaining({ level: WARN, method: 'POST', status: 200, operation: 'MissingInstitution', errors: ['NOT_FOUND'], tenant: 'acme' }),
      expect.objectContaining({ level: INFO, status: 200, operation: 'Institutions', tenant: 'acme' }),
    ]);
    expect(requestLines('/graphql')[1]).not.toHaveProperty('errors');
  });

  it('leave health probes out at info level, and log a REST error with its code', async () => {
    log.length = 0;
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const missing = await acme.rest('GET', '/institutions/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(lines().filter((line) => line.route === '/healthz' || line.route === '/readyz')).toEqual([]);
    expect(requestLines('/api/v1/institutions/:uuid')).toEqual([expect.objectContaining({ level: WARN, status: 404, errors: ['NOT_FOUND'] })]);
  });

  it('of an unknown path show no path at all', async () => {
    log.length = 0;
    await fetch(`${service.url}/p/acme/maria-oliveira-secret-slug?email=maria@example.edu`);
    await fetch(`${service.url}/no/such/maria@example.edu`);
    expect(log.join('')).not.toContain('maria');
  });
});

/** The value of one series in Prometheus text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(url = service.url, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe('GET /metrics', () => {
  it('counts requests by route template and status, GraphQL operations by name and outcome', async () => {
    await acme.graphql('query Institutions { institutions(first: 1) { totalCount } }');
    await acme.graphql('query MissingInstitution { institution(uuid: "0190d3b4-0000-7000-8000-000000000000") { uuid } }');
    const text = await scrape();
    expect(sample(text, 'credentials_http_request_duration_seconds_count{route="/api/v1/students",method="GET",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'credentials_http_request_duration_seconds_bucket{le="+Inf",route="/graphql",method="POST",status="200"}')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'credentials_graphql_operations_total{operation="Institutions",outcome="success"}')).toBe(2);
    expect(sample(text, 'credentials_graphql_operations_total{operation="MissingInstitution",outcome="error"}')).toBe(2);
    expect(text).not.toContain('maria');
  });

  it('shows the database pool, process metrics and the outbox backlog with the age of its oldest message', async () => {
    const before = await scrape();
    expect(sample(before, 'credentials_db_pool_connections{state="max"}')).toBe(20);
    expect(sample(before, 'credentials_db_pool_connections{state="in_use"}')).toEqual(expect.any(Number));
    expect(sample(before, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(before, 'nodejs_eventloop_lag_seconds')).toEqual(expect.any(Number));
    // A message not due for an hour, queued 90 seconds ago, stays pending while the worker runs.
    await service.orm.em.getConnection().execute(
      `insert into notifications (uuid, tenant_uuid, kind, recipient_email, recipient_name, subject, text_body, created_at, updated_at, next_attempt_at, status)
       select gen_random_uuid(), uuid, 'test', 'x@example.org', 'X', 'S', 'T', now() - interval '90 seconds', now(), now() + interval '1 hour', 'pending' from tenants limit 1`,
    );
    const after = await scrape();
    expect(sample(after, 'credentials_outbox_pending')).toBe((sample(before, 'credentials_outbox_pending') ?? 0) + 1);
    expect(sample(after, 'credentials_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(90);
  });

  it('shows the job queue by task: depth, jobs given up, and how long the oldest due job has waited', async () => {
    const sql = (query: string) => service.orm.em.getConnection().execute(query);
    // A task no process runs: its jobs stay where they are.
    await sql(`select graphile_worker.add_job('test.unrun', '{}'::json, run_at := now() - interval '90 seconds')`);
    await sql(`select graphile_worker.add_job('test.unrun', '{}'::json, run_at := now() + interval '1 hour')`);
    await sql(`select graphile_worker.add_job('test.unrun', '{}'::json, job_key := 'test.given-up', max_attempts := 1)`);
    // What a worker leaves of a job whose last attempt failed.
    await sql(`update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'boom' where key = 'test.given-up'`);

    const text = await scrape();
    expect(sample(text, 'credentials_queue_jobs{task="test.unrun"}')).toBe(2);
    expect(sample(text, 'credentials_queue_failed_jobs{task="test.unrun"}')).toBe(1);
    expect(sample(text, 'credentials_queue_oldest_due_age_seconds{task="test.unrun"}')).toBeGreaterThanOrEqual(90);
    // The periodic tasks are there too, each waiting for its next run.
    expect(sample(text, 'credentials_queue_jobs{task="tokens.purge"}')).toBe(1);
  });

  it('counts issuances and revocations and times the signing', async () => {
    const before = await scrape();
    const certificate = await factories(acme).certificate();
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);
    const after = await scrape();
    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    expect(delta('credentials_certificates_issued_total')).toBe(1);
    expect(delta('credentials_certificates_revoked_total')).toBe(1);
    expect(delta('credentials_signing_duration_seconds_count{outcome="signed"}')).toBe(1);
  });

  it('with METRICS_TOKEN set, answers only that bearer token', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await startTestService({ METRICS_TOKEN: token }, service.database);
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456780' } })).status).toBe(401);
      expect(await scrape(guarded.url, { authorization: `Bearer ${token}` })).toContain('credentials_http_request_duration_seconds');
    } finally {
      await guarded.stop();
    }
  });
});
