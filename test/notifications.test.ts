import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { jest } from '@jest/globals';
import { openOrm, type Orm } from '../src/db/orm.js';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { Notification, NotificationStatus } from '../src/notifications/notification.entity.js';
import { enqueueNotification, type OutboxMessage } from '../src/notifications/notification.outbox.js';
import { TenantService } from '../src/tenants/tenant.service.js';
import { createTestDatabase } from './support/database.js';
import { startTestService, type TestService } from './support/service.js';
import { header, SmtpListener } from './support/smtp.js';
import { freePort, until } from './support/wait.js';

jest.setTimeout(60_000);

const message = (recipientEmail: string, fields: Partial<OutboxMessage> = {}): OutboxMessage => ({
  kind: 'certificate_issued',
  recipientEmail,
  recipientName: 'Ana Souza',
  subject: 'Your certificate in Data Science is ready',
  textBody: 'Dear Ana,\nyour certificate has been issued.\nhttp://credentials.test/verify/abc',
  htmlBody: '<p>Dear Ana, your certificate has been <b>issued</b>.</p>',
  referenceUuid: '0193f0a4-1111-7000-8000-000000000001',
  ...fields,
});

async function tenantUuid(orm: Orm, identifier: string): Promise<string> {
  return (await new TenantService(orm.em.fork()).ensure(identifier)).uuid;
}

/** Queues in a committed transaction of a tenant-scoped EntityManager, as issuance does. */
async function enqueue(orm: Orm, tenant: string, ...messages: OutboxMessage[]): Promise<string[]> {
  const em = scopeToTenant(orm.em.fork(), tenant);
  return em.transactional(async (tx) => messages.map((each) => enqueueNotification(tx, each).uuid));
}

function load(orm: Orm, tenant: string, uuid: string): Promise<Notification | null> {
  return scopeToTenant(orm.em.fork(), tenant).findOne(Notification, { uuid });
}

async function reschedule(orm: Orm, uuid: string, set = 'next_attempt_at = now()'): Promise<void> {
  await orm.em.fork().execute(`update notifications set ${set} where uuid = ?`, [uuid]);
}

let listener: SmtpListener;
let service: TestService;
let acme: string;
let globex: string;
let barriers = 0;

/** Queues one more message and waits for it: every notification due before it has had its turn. */
async function barrier(orm = service.orm, tenant = acme): Promise<void> {
  const address = `barrier-${++barriers}@example.org`;
  await enqueue(orm, tenant, message(address));
  await until(() => listener.to(address).length === 1, address);
}

beforeAll(async () => {
  listener = await new SmtpListener().listen();
  service = await startTestService({ SMTP_URL: listener.url, NOTIFICATION_POLL_MS: '50' });
  [acme, globex] = await Promise.all([tenantUuid(service.orm, 'acme'), tenantUuid(service.orm, 'globex')]);
});
afterAll(async () => {
  await service.stop();
  await listener.close();
});

describe('notification delivery over SMTP', () => {
  it('delivers a committed notification once to the student, with its subject and bodies, and marks it delivered', async () => {
    const [uuid] = await enqueue(service.orm, acme, message('ana@example.org'));
    await until(async () => (await load(service.orm, acme, uuid))?.status === NotificationStatus.delivered, 'delivery');
    await barrier();

    const [mail, ...more] = listener.to('ana@example.org');
    expect(more).toEqual([]);
    expect(mail.from).toBe('no-reply@localhost');
    expect(mail.to).toEqual(['ana@example.org']);
    expect(header(mail.raw, 'From')).toBe('Credentials <no-reply@localhost>');
    expect(header(mail.raw, 'To')).toBe('Ana Souza <ana@example.org>');
    expect(header(mail.raw, 'Subject')).toBe('Your certificate in Data Science is ready');
    expect(header(mail.raw, 'Message-ID')).toBe(`<${uuid}@localhost>`);
    expect(mail.raw).toContain('Dear Ana,\r\nyour certificate has been issued.\r\nhttp://credentials.test/verify/abc');
    expect(mail.raw).toContain('<p>Dear Ana, your certificate has been <b>issued</b>.</p>');

    const row = await load(service.orm, acme, uuid);
    expect(row).toMatchObject({
      kind: 'certificate_issued',
      referenceUuid: '0193f0a4-1111-7000-8000-000000000001',
      status: 'delivered',
      attempts: 1,
      lockedUntil: null,
      lastError: null,
    });
    expect(row!.deliveredAt).toBeInstanceOf(Date);
    expect(row!.tenant.uuid).toBe(acme);
  });

  it('sends nothing for a notification whose transaction rolled back', async () => {
    const em = scopeToTenant(service.orm.em.fork(), acme);
    const issuance = em.transactional(async (tx) => {
      enqueueNotification(tx, message('rolled-back@example.org'));
      await tx.flush(); // the row (and its trigger) really reached the database before the rollback
      throw new Error('signing failed');
    });
    await expect(issuance).rejects.toThrow('signing failed');

    await barrier();
    expect(listener.to('rolled-back@example.org')).toEqual([]);
    expect(await scopeToTenant(service.orm.em.fork(), acme).count(Notification, { recipientEmail: 'rolled-back@example.org' })).toBe(0);
  });

  it('retries a refused message with growing backoff, keeps the error, and delivers it once accepted', async () => {
    listener.refused.add('bounce@example.org');
    const [uuid] = await enqueue(service.orm, acme, message('bounce@example.org'));

    await until(async () => (await load(service.orm, acme, uuid))!.attempts === 1, 'the first attempt');
    const first = (await load(service.orm, acme, uuid))!;
    expect(first.status).toBe('pending');
    expect(first.lastError).toContain('Mailbox temporarily unavailable');
    expect(first.lockedUntil).toBeNull();
    expect(first.nextAttemptAt.getTime() - first.updatedAt.getTime()).toBe(5_000);

    await reschedule(service.orm, uuid); // as if the 5 s had passed
    await until(async () => (await load(service.orm, acme, uuid))!.attempts === 2, 'the second attempt');
    const second = (await load(service.orm, acme, uuid))!;
    expect(second.status).toBe('pending');
    expect(second.nextAttemptAt.getTime() - second.updatedAt.getTime()).toBe(10_000);

    listener.refused.delete('bounce@example.org');
    await reschedule(service.orm, uuid);
    await until(async () => (await load(service.orm, acme, uuid))!.status === 'delivered', 'delivery after the refusals');
    await barrier();
    expect(listener.to('bounce@example.org')).toHaveLength(1);
    expect(header(listener.to('bounce@example.org')[0].raw, 'Message-ID')).toBe(`<${uuid}@localhost>`);
    expect(await load(service.orm, acme, uuid)).toMatchObject({ attempts: 3, lastError: expect.stringContaining('Mailbox temporarily unavailable') });
  });

  it('gives a notification up as failed after its last attempt and never sends it again', async () => {
    listener.refused.add('gone@example.org');
    const [uuid] = await enqueue(service.orm, acme, message('gone@example.org'));
    await until(async () => (await load(service.orm, acme, uuid))!.attempts === 1, 'the first attempt');
    await reschedule(service.orm, uuid, 'attempts = 9, next_attempt_at = now()');

    await until(async () => (await load(service.orm, acme, uuid))!.status === 'failed', 'giving up');
    listener.refused.delete('gone@example.org');
    await reschedule(service.orm, uuid);
    await barrier();
    expect(listener.to('gone@example.org')).toEqual([]);
    expect(await load(service.orm, acme, uuid)).toMatchObject({ status: 'failed', attempts: 10, lastError: expect.stringContaining('451') });
  });

  it("keeps one tenant's notifications invisible to another tenant's scope", async () => {
    const [uuid] = await enqueue(service.orm, acme, message('private@example.org'));
    expect(await load(service.orm, globex, uuid)).toBeNull();
    expect((await load(service.orm, acme, uuid))?.recipientEmail).toBe('private@example.org');
  });
});

describe('waking the worker', () => {
  it('delivers right after the commit, long before the next poll', async () => {
    const sleepy = await startTestService({ SMTP_URL: listener.url, NOTIFICATION_POLL_MS: '600000' });
    try {
      const tenant = await tenantUuid(sleepy.orm, 'acme');
      await barrier(sleepy.orm, tenant); // the worker has made its first round and is now asleep
      const [uuid] = await enqueue(sleepy.orm, tenant, message('prompt@example.org'));
      await until(() => listener.to('prompt@example.org').length === 1, 'the commit to wake the worker', 10_000);
      expect(header(listener.to('prompt@example.org')[0].raw, 'Message-ID')).toBe(`<${uuid}@localhost>`);
    } finally {
      await sleepy.stop();
    }
  });
});

describe('several server processes on one database', () => {
  it('deliver each of 20 notifications of two tenants exactly once between them', async () => {
    const second = await startTestService({ SMTP_URL: listener.url, NOTIFICATION_POLL_MS: '50' }, service.database);
    const students = Array.from({ length: 20 }, (_, i) => `student-${i}@example.org`);
    try {
      const batch = (tenant: string, from: number) =>
        enqueue(service.orm, tenant, ...students.slice(from, from + 10).map((email, i) => message(email, { subject: `Certificate ${from + i}` })));
      const uuids = (await Promise.all([batch(acme, 0), batch(globex, 10)])).flat();
      const delivered = async () =>
        Number(
          (
            await service.orm.em
              .fork()
              .execute(`select count(*) as n from notifications where uuid in (${uuids.map(() => '?').join(',')}) and status = 'delivered'`, uuids)
          )[0].n,
        );
      await until(async () => (await delivered()) === 20, 'all 20 delivered');
    } finally {
      await second.stop(); // finishes whatever it is sending, so a duplicate could not arrive later
    }
    await barrier();
    for (const [i, email] of students.entries()) {
      const mails = listener.to(email);
      expect(mails).toHaveLength(1);
      expect(header(mails[0].raw, 'Subject')).toBe(`Certificate ${i}`);
    }
  });
});

describe('a server process killed during delivery', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('leaves the notification pending, and the next process delivers it exactly once', async () => {
    const database = await createTestDatabase();
    // Accepts connections and never greets: the child's delivery hangs mid-send, holding its lease.
    const silent: net.Socket[] = [];
    const blackHole = net.createServer((socket) => silent.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => blackHole.once('listening', resolve));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      SMTP_URL: `smtp://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}`,
      NOTIFICATION_POLL_MS: '50',
      NOTIFICATION_LEASE_MS: '2000',
    };
    child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    // A whole process start: over 30 s on a loaded 2-core machine; 90 s as the other files that start the built server.
    await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200, 'the child to be ready', 90_000).catch(
      (error) => {
        throw new Error(`${error.message}; its output:\n${output}`);
      },
    );

    const orm = await openOrm(database.url, { poolMax: 2 });
    let successor: TestService | undefined;
    try {
      const tenant = await tenantUuid(orm, 'acme');
      const [uuid] = await enqueue(orm, tenant, message('crash@example.org'));
      await until(() => silent.length > 0, 'the child to start sending');
      const leased = (await load(orm, tenant, uuid))!;
      expect(leased).toMatchObject({ status: 'pending', attempts: 0 });
      expect(leased.lockedUntil).toBeInstanceOf(Date);

      child.kill('SIGKILL');
      await exited;
      successor = await startTestService({ SMTP_URL: listener.url, NOTIFICATION_POLL_MS: '50' }, database);
      await until(async () => (await load(orm, tenant, uuid))?.status === 'delivered', 'delivery by the next process');
      await barrier(successor.orm, tenant);

      const mails = listener.to('crash@example.org');
      expect(mails).toHaveLength(1);
      expect(header(mails[0].raw, 'Message-ID')).toBe(`<${uuid}@localhost>`);
      expect(header(mails[0].raw, 'Subject')).toBe('Your certificate in Data Science is ready');
      expect(await load(orm, tenant, uuid)).toMatchObject({ status: 'delivered', attempts: 1, lockedUntil: null });
    } finally {
      await successor?.stop();
      await orm.close();
      silent.forEach((socket) => socket.destroy());
      blackHole.close();
      await database.drop();
    }
  });
});

describe('the standalone worker (NOTIFICATION_WORKER=off on the API processes)', () => {
  it('delivers queued notifications and on SIGTERM stops cleanly', async () => {
    const database = await createTestDatabase();
    const orm = await openOrm(database.url, { poolMax: 2 });
    const env = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: database.url, SMTP_URL: listener.url, NOTIFICATION_POLL_MS: '50' };
    const worker = spawn(process.execPath, ['dist/src/queue/worker-main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    worker.stdout!.on('data', (chunk) => (output += chunk));
    worker.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    try {
      const tenant = await tenantUuid(orm, 'acme');
      const [uuid] = await enqueue(orm, tenant, message('standalone@example.org'));
      await until(async () => (await load(orm, tenant, uuid))?.status === 'delivered', 'delivery by the standalone worker').catch((error) => {
        throw new Error(`${error.message}; worker output:\n${output}`);
      });
      expect(header(listener.to('standalone@example.org')[0].raw, 'Message-ID')).toBe(`<${uuid}@localhost>`);
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('queue worker stopped cleanly');
    } finally {
      worker.kill('SIGKILL');
      await orm.close();
      await database.drop();
    }
  });
});

describe('without SMTP_URL', () => {
  let dataDir: string;
  let fileService: TestService;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'credential-service-outbox-'));
    await chmod(dataDir, 0o755);
    fileService = await startTestService({ DATA_DIR: dataDir, NOTIFICATION_POLL_MS: '50', MAIL_FROM: 'Registry <registry@school.test>' });
  });
  afterAll(async () => {
    await fileService.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes each message as an .eml file under DATA_DIR/outbox and marks it delivered', async () => {
    const tenant = await tenantUuid(fileService.orm, 'acme');
    const [uuid] = await enqueue(fileService.orm, tenant, message('file@example.org'));
    await until(async () => (await load(fileService.orm, tenant, uuid))?.status === 'delivered', 'delivery to a file');

    expect(await readdir(path.join(dataDir, 'outbox'))).toEqual([`${uuid}.eml`]);
    const raw = (await readFile(path.join(dataDir, 'outbox', `${uuid}.eml`), 'utf8')).replace(/\r?\n/g, '\r\n');
    expect(header(raw, 'From')).toBe('Registry <registry@school.test>');
    expect(header(raw, 'To')).toBe('Ana Souza <file@example.org>');
    expect(header(raw, 'Subject')).toBe('Your certificate in Data Science is ready');
    expect(header(raw, 'Message-ID')).toBe(`<${uuid}@school.test>`);
    expect(raw).toContain('Dear Ana,\r\nyour certificate has been issued.');
    expect(raw).toContain('<p>Dear Ana, your certificate has been <b>issued</b>.</p>');
  });

  it('keeps the outbox private: the directory 0700 and every message 0600, whatever the umask', async () => {
    const tenant = await tenantUuid(fileService.orm, 'acme');
    const [uuid] = await enqueue(fileService.orm, tenant, message('private@example.org'));
    await until(async () => (await load(fileService.orm, tenant, uuid))?.status === 'delivered', 'delivery to a file');

    expect((await stat(path.join(dataDir, 'outbox'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dataDir, 'outbox', `${uuid}.eml`))).mode & 0o777).toBe(0o600);
  });
});
