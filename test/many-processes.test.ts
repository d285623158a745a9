import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientService } from '../src/auth/client.service.js';
import { openOrm, type Orm } from '../src/db/orm.js';
import { createEmptyDatabase, type TestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { ApiClient, provisionClient, requestToken, type Credentials } from './support/service.js';
import { SmtpListener } from './support/smtp.js';
import { type RoundRobinProxy, startRoundRobinProxy } from './support/round-robin-proxy.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { freePort, until } from './support/wait.js';

/** One child process of the deployment, with everything it printed. */
interface Running {
  child: ChildProcess;
  output: string;
  url: string;
  exited: Promise<number | null>;
}

let database: TestDatabase;
let smtp: SmtpListener;
let orm: Orm;
const apis: Running[] = [];
const workers: Running[] = [];
let credentials: Credentials;
/** Public reads per minute and address, counted in PostgreSQL: one budget for the three processes. */
const PUBLIC_READS_PER_MINUTE = 9;
let clients: ApiClient[];

function run(script: string, env: Record<string, string>, url = ''): Running {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running: Running = { child, output: '', url, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (chunk) => (running.output += chunk));
  child.stderr!.on('data', (chunk) => (running.output += chunk));
  return running;
}

async function stop(running: Running): Promise<number | null> {
  if (running.child.exitCode === null) running.child.kill('SIGTERM');
  return running.exited;
}

async function signInEverywhere(): Promise<ApiClient[]> {
  const response = await requestToken(apis[0]!.url, credentials);
  const { access_token } = (await response.json()) as { access_token: string };
  return apis.map((api) => new ApiClient(api.url, access_token, credentials.tenant));
}

beforeAll(async () => {
  [database, smtp] = await Promise.all([createEmptyDatabase(), new SmtpListener().listen()]);
  const shared = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    DATABASE_MIGRATION_URL: database.ownerUrl,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SMTP_URL: smtp.url,
    PUBLIC_BASE_URL: 'http://credentials.test',
    RATE_LIMIT_API_PER_MINUTE: '0',
    RATE_LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC_READS_PER_MINUTE),
    // Every poll is a query of each of five processes, for the whole file: 200 ms keeps the second looks
    // below (1 s) at five rounds while the polling no longer dominates what the file costs.
    EXPIRY_SWEEP_MS: '200',
    NOTIFICATION_POLL_MS: '200',
    PDF_WORKERS: '1',
  };
  // Three API processes started together on a new database (they migrate it under the advisory lock).
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    apis.push(run('dist/src/main.js', { ...shared, PORT: String(port), HOST: '127.0.0.1', NOTIFICATION_WORKER: 'off' }, `http://127.0.0.1:${port}`));
  }
  for (const api of apis) {
    await until(async () => (await fetch(`${api.url}/readyz`).catch(() => undefined))?.status === 200, `${api.url} ready\n${api.output}`, 120_000);
  }
  for (let i = 0; i < 2; i++) workers.push(run('dist/src/queue/worker-main.js', shared));
  for (const worker of workers) await until(() => worker.output.includes('queue worker running'), `worker running\n${worker.output}`, 60_000);
  orm = await openOrm(database.url, { poolMax: 2 });
  credentials = await provisionClient(orm, 'acme');
  clients = await signInEverywhere();
}, 240_000);

afterAll(async () => {
  const codes = await Promise.all([...apis, ...workers].map(stop));
  await orm?.close();
  await smtp.close();
  await database.drop();
  expect(codes).toEqual([0, 0, 0, 0, 0]);
});

async function issueOn(client: ApiClient, parts: { institution_uuid: string; course_uuid: string }, email: string, extra: Record<string, unknown> = {}) {
  const student = await factories(client).student({ email });
  const file = await upload(client, [[await diplomaPdf(`Diploma of ${email}`), 'diploma.pdf']]);
  return client.rest('POST', '/certificates', { ...parts, student_uuid: student.uuid, file_uuid: file.body.data[0].uuid, finish: true, ...extra });
}

describe('three API processes and two queue workers on one PostgreSQL', () => {
  let parts: { institution_uuid: string; course_uuid: string };
  const issuedTo: string[] = [];

  beforeAll(async () => {
    const institution = await factories(clients[0]!).institution({ name: 'Instituto Federal' });
    const course = await factories(clients[1]!).course({ institution_uuid: institution.uuid });
    parts = { institution_uuid: institution.uuid, course_uuid: course.uuid };
  });

  it('all started on the new database, which was migrated once', async () => {
    const [applied] = await orm.em
      .getConnection()
      .execute<{ all: number; distinct: number }[]>('select count(*)::int as all, count(distinct name)::int as distinct from schema_migrations');
    expect(applied!.all).toBeGreaterThan(0);
    expect(applied!.all).toBe(applied!.distinct);
  });

  it('issue certificates on every process, each readable from every other', async () => {
    const issued = await Promise.all(clients.map((client, i) => issueOn(client, parts, `student${i}@example.org`)));
    expect(issued.map((response) => response.status)).toEqual([201, 201, 201]);
    issuedTo.push('student0@example.org', 'student1@example.org', 'student2@example.org');
    for (const [i, response] of issued.entries()) {
      const elsewhere = await clients[(i + 1) % 3]!.rest('GET', `/certificates/${response.body.data.uuid}`);
      expect([elsewhere.status, elsewhere.body.data.status]).toEqual([200, 'issued']);
    }
  });

  it('let exactly one of three processes racing for one uploaded file issue with it', async () => {
    const students = await Promise.all(clients.map((client, i) => factories(client).student({ email: `racer${i}@example.org` })));
    const file = await upload(clients[0]!, [[await diplomaPdf('The contested diploma'), 'diploma.pdf']]);
    const fileUuid = file.body.data[0].uuid;
    const answers = await Promise.all(
      clients.map((client, i) => client.rest('POST', '/certificates', { ...parts, student_uuid: students[i]!.uuid, file_uuid: fileUuid, finish: true })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422, 422]);
    issuedTo.push(`racer${answers.findIndex((answer) => answer.status === 201)}@example.org`);
  });

  it('deliver exactly one e-mail per issued certificate, whichever worker takes it', async () => {
    await until(() => smtp.received.length >= issuedTo.length, 'the e-mails');
    // Both workers keep polling every 200 ms: a duplicate would arrive within a few rounds.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(smtp.received.flatMap((mail) => mail.to).sort()).toEqual([...issuedTo].sort());
  });

  it('expire a certificate past its expiry once, whichever process sweeps first', async () => {
    const issued = await issueOn(clients[2]!, parts, 'expiring@example.org', { expires_at: '2031-01-01' });
    issuedTo.push('expiring@example.org');
    const connection = orm.em.getConnection();
    await connection.execute(`update certificates set expires_at = now() - interval '1 day' where uuid = ?`, [issued.body.data.uuid]);
    const row = async () =>
      (
        await connection.execute<{ status: string; updated_at: Date }[]>('select status, updated_at from certificates where uuid = ?', [issued.body.data.uuid])
      )[0]!;
    await until(async () => (await row()).status === 'expired', 'the sweep');
    const first = await row();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // five sweeps
    expect(await row()).toEqual(first);
    for (const client of clients) expect((await client.rest('GET', `/certificates/${issued.body.data.uuid}`)).body.data.status).toBe('expired');
  });

  it('refuse the old token on every process within a second of a rotation', async () => {
    for (const client of clients) expect((await client.rest('GET', '/institutions')).status).toBe(200);
    const rotated = await new ClientService(orm.em.fork()).rotate(credentials.clientId);
    // The rotation ran here, outside the servers: each learns of it through NOTIFY (docs/operations.md).
    for (const client of clients) await until(async () => (await client.rest('GET', '/institutions')).status === 401, 'the old token refused', 1_000);
    credentials = { ...credentials, ...rotated };
    for (const client of await signInEverywhere()) expect((await client.rest('GET', '/institutions')).status).toBe(200);
  });
});

describe('the three API processes behind a round-robin proxy', () => {
  let proxy: RoundRobinProxy;
  let receiver: WebhookReceiver;
  let client: ApiClient;

  beforeAll(async () => {
    [proxy, receiver] = await Promise.all([startRoundRobinProxy(apis.map(({ url }) => url)), new WebhookReceiver().listen()]);
    const token = await requestToken(proxy.url, credentials);
    client = new ApiClient(proxy.url, ((await token.json()) as { access_token: string }).access_token, credentials.tenant);
  });

  afterAll(async () => {
    await proxy?.close();
    await receiver?.close();
  });

  it('deliver every webhook and e-mail of single and batch issuance exactly once, whichever process took each request', async () => {
    const hook = await client.rest('POST', '/webhooks', { url: receiver.url('/issued'), events: ['certificate.issued'], description: 'proxy' });
    expect(hook.status).toBe(201);
    const institution = await factories(client).institution();
    const course = await factories(client).course({ institution_uuid: institution.uuid });
    const parts = { institution_uuid: institution.uuid, course_uuid: course.uuid };
    const single = await Promise.all([0, 1, 2].map((i) => issueOn(client, parts, `proxied${i}@example.org`)));
    expect(single.map(({ status }) => status)).toEqual([201, 201, 201]);
    const students = await Promise.all([0, 1].map((i) => factories(client).student({ email: `batched${i}@example.org` })));
    const files = await Promise.all(students.map(async (_, i) => upload(client, [[await diplomaPdf(`Batched diploma ${i}`), 'diploma.pdf']])));
    const batch = await client.rest('POST', '/certificates/batch', {
      inputs: students.map((student, i) => ({ ...parts, student_uuid: student.uuid, file_uuid: files[i]!.body.data[0].uuid, finish: true })),
    });
    expect([batch.status, batch.body.data.done]).toEqual([200, 2]);
    const issued = [...single.map(({ body }) => body.data.uuid as string), ...batch.body.data.results.map(({ uuid }: { uuid: string }) => uuid)];
    const addresses = ['proxied0', 'proxied1', 'proxied2', 'batched0', 'batched1'].map((name) => `${name}@example.org`);
    await until(() => receiver.at('/issued').length >= issued.length, 'the webhooks');
    await until(() => addresses.every((address) => smtp.received.some((mail) => mail.to.includes(address))), 'the e-mails');
    // Both workers keep polling every 200 ms: a duplicate would arrive within a few rounds.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const delivered = receiver.at('/issued').map(({ body }) => issued.find((uuid) => body.includes(uuid)));
    expect(delivered.sort()).toEqual([...issued].sort());
    expect(
      smtp.received
        .flatMap((mail) => mail.to)
        .filter((to) => addresses.includes(to))
        .sort(),
    ).toEqual([...addresses].sort());
    expect(proxy.served.every((count) => count > 0)).toBe(true);
  });

  it('share one public rate limit between the processes', async () => {
    const answers: number[] = [];
    for (let i = 0; i <= PUBLIC_READS_PER_MINUTE; i++) answers.push((await fetch(`${proxy.url}/api/v1/verify/${randomUUID()}`)).status);
    expect(answers.slice(0, PUBLIC_READS_PER_MINUTE)).toEqual(Array(PUBLIC_READS_PER_MINUTE).fill(404));
    expect(answers[PUBLIC_READS_PER_MINUTE]).toBe(429);
  });

  it('refuse a rotated token on every process the proxy reaches', async () => {
    const rotated = await new ClientService(orm.em.fork()).rotate(credentials.clientId);
    credentials = { ...credentials, ...rotated };
    // Three requests in a row reach the three processes: each must refuse the old token.
    await until(
      async () => {
        const statuses = await Promise.all([0, 1, 2].map(() => client.rest('GET', '/institutions').then(({ status }) => status)));
        return statuses.every((status) => status === 401);
      },
      'the old token refused everywhere',
      2_000,
    );
    const token = await requestToken(proxy.url, credentials);
    const renewed = new ApiClient(proxy.url, ((await token.json()) as { access_token: string }).access_token, credentials.tenant);
    for (let i = 0; i < 3; i++) expect((await renewed.rest('GET', '/institutions')).status).toBe(200);
  });
});
