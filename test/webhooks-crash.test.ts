import { jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { openOrm } from '../src/db/orm.js';
import { createTestDatabase } from './support/database.js';
import { uploadPdf } from './support/files.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

jest.setTimeout(90_000);

describe('a server process killed during a webhook delivery', () => {
  let child: ChildServer | undefined;
  afterEach(() => child?.killHard());

  it('leaves the delivery pending, and the next process delivers it: at least once, nothing lost', async () => {
    const database = await createTestDatabase();
    const receiver = await new WebhookReceiver().listen();
    receiver.answer('/held', 'hold');
    child = await startChildServer(database.url, { NOTIFICATION_POLL_MS: '50', NOTIFICATION_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000' });

    const orm = await openOrm(database.url, { poolMax: 2 });
    let successor: TestService | undefined;
    try {
      const { api } = child;
      const hook = (await api.rest('POST', '/webhooks', { url: receiver.url('/held'), events: ['file.uploaded'] })).body.data;
      const file = await uploadPdf(api, 'uploaded before the crash');
      await until(() => receiver.at('/held').length === 1, 'the child to start delivering');

      const [leased] = await orm.em.fork().execute(`select status, attempt_count, locked_until from webhook_deliveries where endpoint_uuid = ?`, [hook.uuid]);
      expect(leased).toMatchObject({ status: 'pending', attempt_count: 0 });
      expect(leased.locked_until).not.toBeNull();

      await child.killHard();
      receiver.answer('/held', 200);
      successor = await startTestService({ NOTIFICATION_POLL_MS: '50' }, database);
      await until(
        async () => (await orm.em.fork().execute(`select status from webhook_deliveries where endpoint_uuid = ?`, [hook.uuid]))[0]?.status === 'delivered',
        'delivery by the next process',
      );

      const received = receiver.at('/held');
      expect(received).toHaveLength(2);
      expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
      expect(new Webhook(hook.secret).verify(received[1].body, received[1].headers)).toMatchObject({ type: 'file.uploaded', data: { uuid: file.uuid } });
    } finally {
      await successor?.stop();
      await orm.close();
      await receiver.close();
      await database.drop();
    }
  });
});
