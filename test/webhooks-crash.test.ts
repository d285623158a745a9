import { spawn, type ChildProcess } from 'node:child_process';
import { jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { openOrm } from '../src/db/orm.js';
import { createTestDatabase } from './support/database.js';
import { uploadPdf } from './support/files.js';
import { ApiClient, requestToken, startTestService, type TestService } from './support/service.js';
import { freePort, until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

jest.setTimeout(90_000);

const SEED = { SEED_TENANT: 'acme', SEED_CLIENT_ID: 'crash-client', SEED_CLIENT_SECRET: 'crash-secret-0123456789abcdef' };

describe('a server process killed during a webhook delivery', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('leaves the delivery pending, and the next process delivers it: at least once, nothing lost', async () => {
    const database = await createTestDatabase();
    const receiver = await new WebhookReceiver().listen();
    receiver.answer('/held', 'hold');
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      NOTIFICATION_POLL_MS: '50',
      NOTIFICATION_LEASE_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...SEED,
    };
    child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    const baseUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, 'the child to be ready').catch((error) => {
      throw new Error(`${error.message}; its output:\n${output}`);
    });

    const orm = await openOrm(database.url, { poolMax: 2 });
    let successor: TestService | undefined;
    try {
      const token = (
        (await (await requestToken(baseUrl, { clientId: SEED.SEED_CLIENT_ID, clientSecret: SEED.SEED_CLIENT_SECRET })).json()) as { access_token: string }
      ).access_token;
      const api = new ApiClient(baseUrl, token, 'acme');
      const hook = (await api.rest('POST', '/webhooks', { url: receiver.url('/held'), events: ['file.uploaded'] })).body.data;
      const file = await uploadPdf(api, 'uploaded before the crash');
      await until(() => receiver.at('/held').length === 1, 'the child to start delivering');

      const [leased] = await orm.em.fork().execute(`select status, attempt_count, locked_until from webhook_deliveries where endpoint_uuid = ?`, [hook.uuid]);
      expect(leased).toMatchObject({ status: 'pending', attempt_count: 0 });
      expect(leased.locked_until).not.toBeNull();

      child.kill('SIGKILL');
      await exited;
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
