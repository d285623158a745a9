import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { certificates } from '../src/certificates/certificate.service.js';
import { factories } from './support/factories.js';
import { uploadPdf } from './support/files.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';
import { type ReceivedWebhook, WebhookReceiver } from './support/webhook-receiver.js';

jest.setTimeout(90_000);

let receiver: WebhookReceiver;
let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let paths = 0;

beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  service = await startTestService({ NOTIFICATION_POLL_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

/** A fresh receiver path and an endpoint of `api`'s tenant pointing at it; returns both and the secret. */
async function endpoint(api: ApiClient, events = ['certificate.issued', 'certificate.revoked', 'certificate.expired', 'file.uploaded']) {
  const path = `/hooks/${++paths}`;
  const response = await api.rest('POST', '/webhooks', { url: receiver.url(path), events, description: 'test receiver' });
  expect(response.status).toBe(201);
  return { path, uuid: response.body.data.uuid as string, secret: response.body.data.secret as string };
}

/** The request verified by the reference implementation, as a receiver would: returns the parsed body. */
function verified(request: ReceivedWebhook, secret: string): { type: string; timestamp: string; data: Record<string, any> } {
  return new Webhook(secret).verify(request.body, request.headers) as never;
}

const deliveries = async (api: ApiClient, webhookUuid: string) => (await api.rest('GET', `/webhooks/${webhookUuid}/deliveries`)).body.data as any[];

async function reschedule(deliveryUuid: string): Promise<void> {
  await service.orm.em.fork().execute(`update webhook_deliveries set next_attempt_at = now() where uuid = ?`, [deliveryUuid]);
}

describe('webhook endpoints', () => {
  it('shows the whsec_ secret once, in the answer that created the endpoint, in both API styles', async () => {
    const created = await acme.rest('POST', '/webhooks', { url: receiver.url('/secret'), events: ['certificate.issued'] });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: receiver.url('/secret'), events: ['certificate.issued'], enabled: true, disabled_reason: null });
    expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const read = await acme.rest('GET', `/webhooks/${created.body.data.uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.data.secret).toBeNull();
    expect(JSON.stringify((await acme.rest('GET', '/webhooks')).body)).not.toContain(created.body.data.secret);

    const graphql = await acme.graphql(
      `mutation { createWebhook(input: { url: "${receiver.url('/gql')}", events: ["file.uploaded"] }) { uuid enabled secret } }`,
    );
    expect(graphql.body.data.createWebhook).toMatchObject({ enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const again = await acme.graphql(`{ webhook(uuid: "${graphql.body.data.createWebhook.uuid}") { secret events } }`);
    expect(again.body.data.webhook).toEqual({ secret: null, events: ['file.uploaded'] });
  });

  it('refuses unknown event types and non-HTTP URLs with a 422 naming the fields', async () => {
    const response = await acme.rest('POST', '/webhooks', { url: 'ftp://example.org/hook', events: ['certificate.issued', 'certificate.deleted'] });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['events', 'url']);
    expect(response.body.errors.events).toEqual([
      'The selected events are invalid; allowed: certificate.issued, certificate.updated, certificate.revoked, certificate.expired, certificate.anchored, file.uploaded, job.finished.',
    ]);
  });
});

describe('delivery of events', () => {
  it('delivers certificate.issued after issuance, signed as Standard Webhooks verifies it, and logs the attempt', async () => {
    const hook = await endpoint(acme, ['certificate.issued']);
    const certificate = await factories(acme).certificate();
    await until(() => receiver.at(hook.path).length === 1, 'the issued event');

    const [request] = receiver.at(hook.path);
    const event = verified(request, hook.secret);
    expect(event.type).toBe('certificate.issued');
    expect(event.data).toMatchObject({
      uuid: certificate.uuid,
      status: 'issued',
      student_uuid: certificate.student.uuid,
      course_uuid: certificate.course.uuid,
    });
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(request.body, request.headers)).toThrow();
    expect(() => new Webhook(hook.secret).verify(request.body.replace('issued', 'revoked'), request.headers)).toThrow();

    await until(async () => (await deliveries(acme, hook.uuid))[0]?.status === 'delivered', 'the delivery to be recorded');
    const [delivery] = await deliveries(acme, hook.uuid);
    expect(delivery).toMatchObject({
      webhook_id: request.headers['webhook-id'],
      event_type: 'certificate.issued',
      subject_uuid: certificate.uuid,
      attempt_count: 1,
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ response_status: 200, error: null })]);
  });

  it('delivers file.uploaded for new content only', async () => {
    const hook = await endpoint(acme, ['file.uploaded']);
    const file = await uploadPdf(acme, 'webhook upload');
    await until(() => receiver.at(hook.path).length === 1, 'the upload event');
    expect(verified(receiver.at(hook.path)[0], hook.secret)).toMatchObject({ type: 'file.uploaded', data: { uuid: file.uuid, mime_type: 'application/pdf' } });
  });

  it('delivers certificate.revoked only after certificate.issued, even while the issued event is being retried', async () => {
    const hook = await endpoint(acme, ['certificate.issued', 'certificate.revoked']);
    receiver.answer(hook.path, 503);
    const certificate = await factories(acme).certificate();
    await until(() => receiver.at(hook.path).length === 1, 'the first attempt');
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);

    // The revoked event is queued and due, but waits behind the issued one backing off.
    await until(async () => (await deliveries(acme, hook.uuid)).length === 2, 'both deliveries');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at(hook.path).map((request) => verified(request, hook.secret).type)).toEqual(['certificate.issued']);

    receiver.answer(hook.path, 204);
    const issued = (await deliveries(acme, hook.uuid)).find((delivery) => delivery.event_type === 'certificate.issued');
    await reschedule(issued.uuid);
    await until(() => receiver.at(hook.path).length === 3, 'the retry and the revoked event');
    const events = receiver.at(hook.path).map((request) => verified(request, hook.secret));
    expect(events.map((event) => event.type)).toEqual(['certificate.issued', 'certificate.issued', 'certificate.revoked']);
    expect(events[2].data).toMatchObject({ uuid: certificate.uuid, status: 'revoked', revocation_reason: 'Issued in error' });
  });

  it('delivers certificate.expired when the sweeper persists the expiry', async () => {
    const hook = await endpoint(acme, ['certificate.expired']);
    const certificate = await factories(acme).certificate();
    await service.orm.em.fork().execute(`update certificates set expires_at = now() - interval '1 minute' where uuid = ?`, [certificate.uuid]);
    expect(await certificates.expireOverdue({ em: service.orm.em.fork() })).toBeGreaterThanOrEqual(1);
    await until(() => receiver.at(hook.path).length === 1, 'the expired event');
    expect(verified(receiver.at(hook.path)[0], hook.secret)).toMatchObject({
      type: 'certificate.expired',
      data: { uuid: certificate.uuid, status: 'expired' },
    });
  });
});

describe('failures', () => {
  it('retries with a growing backoff, gives up, and disables an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS with the reason', async () => {
    const hook = await endpoint(acme, ['file.uploaded']);
    receiver.answer(hook.path, 500);
    await uploadPdf(acme, 'failing receiver');

    const waits: number[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      await until(async () => (await deliveries(acme, hook.uuid))[0]?.attempt_count === attempt, `attempt ${attempt}`);
      const [delivery] = await deliveries(acme, hook.uuid);
      expect(delivery).toMatchObject({ status: 'pending', last_response_status: 500, last_error: 'failure 500' });
      waits.push(Date.parse(delivery.next_attempt_at) - Date.parse(delivery.attempts.at(-1).attempted_at));
      expect((await acme.rest('GET', `/webhooks/${hook.uuid}`)).body.data.enabled).toBe(true);
      // Failing since the first attempt: make that over 5 days ago, so the last failure disables the endpoint.
      if (attempt === 2)
        await service.orm.em.fork().execute(`update webhook_endpoints set failing_since = now() - interval '121 hours' where uuid = ?`, [hook.uuid]);
      await reschedule(delivery.uuid);
    }
    expect(waits[0]).toBeGreaterThanOrEqual(55_000);
    expect(waits[1]).toBeGreaterThan(waits[0] * 1.8);

    await until(async () => (await deliveries(acme, hook.uuid))[0]?.status === 'failed', 'the last attempt');
    const [failed] = await deliveries(acme, hook.uuid);
    expect(failed.attempts.map((attempt: any) => attempt.response_status)).toEqual([500, 500, 500]);
    const disabled = (await acme.rest('GET', `/webhooks/${hook.uuid}`)).body.data;
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toMatch(/^Disabled after failing every attempt for over 120 hours \(since \d{4}-\d\d-\d\dT[\d:]{8}Z\); last: HTTP 500\.$/);

    // Disabled: new events are not queued for it, and redelivery is refused until it is enabled again.
    await uploadPdf(acme, 'while disabled');
    const redeliver = await acme.rest('POST', `/webhooks/${hook.uuid}/deliveries/${failed.uuid}/redeliver`);
    expect(redeliver.status).toBe(409);
    expect((await deliveries(acme, hook.uuid)).length).toBe(1);

    receiver.answer(hook.path, 200);
    expect((await acme.rest('PATCH', `/webhooks/${hook.uuid}`, { enabled: true })).body.data).toMatchObject({ enabled: true, disabled_reason: null });
    expect((await acme.rest('POST', `/webhooks/${hook.uuid}/deliveries/${failed.uuid}/redeliver`)).status).toBe(201);
    await until(() => receiver.at(hook.path).length === 4, 'the redelivery');
    expect(receiver.at(hook.path)[3].headers['webhook-id']).toBe(failed.webhook_id);
  });

  it('refuses a receiver address that is not public when private addresses are not allowed', async () => {
    const { postWebhook } = await import('../src/webhooks/webhook-http.js');
    const limits = { timeoutMs: 2000, maxResponseBytes: 4096, allowPrivate: false };
    await expect(postWebhook(receiver.url('/private'), {}, '{}', limits)).rejects.toThrow('127.0.0.1 is not a public address');
    await expect(postWebhook('http://localhost:9/private', {}, '{}', limits)).rejects.toThrow(/resolves to a non-public address/);
    expect(receiver.at('/private')).toEqual([]);
  });
});

describe('outbound requests are bounded', () => {
  const limits = { timeoutMs: 500, maxResponseBytes: 4096, allowPrivate: true };

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const { postWebhook } = await import('../src/webhooks/webhook-http.js');
    receiver.answer('/silent', 'hold');
    await expect(postWebhook(receiver.url('/silent'), {}, '{}', limits)).rejects.toThrow('no complete answer within 500 ms');
  });

  it('reads no more than a few KB of an endless answer', async () => {
    const { postWebhook } = await import('../src/webhooks/webhook-http.js');
    const endless = http.createServer((_request, response) => {
      response.writeHead(500);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (response.write(chunk));
        response.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await postWebhook(`http://127.0.0.1:${(endless.address() as AddressInfo).port}/`, {}, '{}', limits);
      expect(answer.status).toBe(500);
      expect(answer.body.length).toBe(4096);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });
});

describe('redelivery', () => {
  it('sends a delivered event again with the same webhook-id, over REST and GraphQL', async () => {
    const hook = await endpoint(acme, ['file.uploaded']);
    await uploadPdf(acme, 'redelivered');
    await until(async () => (await deliveries(acme, hook.uuid))[0]?.status === 'delivered', 'the first delivery');
    const [first] = await deliveries(acme, hook.uuid);

    const rest = await acme.rest('POST', `/webhooks/${hook.uuid}/deliveries/${first.uuid}/redeliver`);
    expect(rest.status).toBe(201);
    expect(rest.body.data).toMatchObject({ webhook_id: first.webhook_id, status: 'pending', attempt_count: 0 });
    const graphql = await acme.graphql(`mutation { redeliverWebhookDelivery(webhookUuid: "${hook.uuid}", uuid: "${first.uuid}") { webhookId status } }`);
    expect(graphql.body.data.redeliverWebhookDelivery).toEqual({ webhookId: first.webhook_id, status: 'pending' });

    await until(() => receiver.at(hook.path).length === 3, 'both redeliveries');
    const received = receiver.at(hook.path);
    expect(new Set(received.map((request) => request.headers['webhook-id']))).toEqual(new Set([first.webhook_id]));
    expect(new Set(received.map((request) => JSON.stringify(verified(request, hook.secret))))).toHaveProperty('size', 1);
  });
});

describe('tenant isolation', () => {
  it("never delivers one tenant's events to another tenant's endpoint, and a foreign webhook uuid is a 404", async () => {
    const mine = await endpoint(acme, ['file.uploaded']);
    const theirs = await endpoint(globex, ['file.uploaded']);
    await uploadPdf(acme, 'acme only');
    await until(() => receiver.at(mine.path).length === 1, 'the acme event');
    await uploadPdf(globex, 'globex only');
    await until(() => receiver.at(theirs.path).length === 1, 'the globex event');
    expect(verified(receiver.at(mine.path)[0], mine.secret).data).not.toEqual(verified(receiver.at(theirs.path)[0], theirs.secret).data);
    expect(receiver.at(mine.path)).toHaveLength(1);

    const [delivery] = await deliveries(acme, mine.uuid);
    for (const [method, path] of [
      ['GET', `/webhooks/${mine.uuid}`],
      ['PATCH', `/webhooks/${mine.uuid}`],
      ['DELETE', `/webhooks/${mine.uuid}`],
      ['GET', `/webhooks/${mine.uuid}/deliveries`],
      ['POST', `/webhooks/${mine.uuid}/deliveries/${delivery.uuid}/redeliver`],
      ['POST', `/webhooks/${theirs.uuid}/deliveries/${delivery.uuid}/redeliver`],
    ]) {
      const response = await globex.rest(method, path, method === 'PATCH' ? { enabled: false } : undefined);
      expect([path, response.status]).toEqual([path, 404]);
    }
    expect((await globex.rest('GET', '/webhooks')).body.data.map((row: any) => row.uuid)).not.toContain(mine.uuid);
    expect((await acme.rest('GET', `/webhooks/${mine.uuid}`)).body.data.enabled).toBe(true);
  });
});
