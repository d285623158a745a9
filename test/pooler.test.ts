import { jest } from '@jest/globals';
import type { ServiceRoles } from '../src/db/database-roles.js';
import { createLogger } from '../src/logger.js';
import { ROLES_VARIABLE, SERVER_URL_VARIABLE } from './support/cluster.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { type PgBouncer, PGBOUNCER, startPgBouncer } from './support/pgbouncer.js';
import { type ApiClient, NO_BACKGROUND_WORK, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * The service behind Debian's PgBouncer 1.18 in transaction mode (consecutive transactions of one
 * client connection on different server sessions): with DATABASE_POOLER=transaction a smoke subset
 * of the suite passes; without it the page statement's named prepared statement breaks.
 */

jest.setTimeout(120_000);

const describeWithPgBouncer = PGBOUNCER ? describe : describe.skip;
if (!PGBOUNCER) console.warn('pooler tests skipped: pgbouncer is not installed (apt-get install pgbouncer; .ci/run installs it)');

const roles = () => JSON.parse(process.env[ROLES_VARIABLE]!) as ServiceRoles;

/** Many list pages at once, so the pooled connections' named statements meet server sessions that never prepared them. */
async function listPages(api: ApiClient): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, index) => api.rest('GET', index % 2 ? '/students?page=1' : '/certificates?page=1').then((response) => response.status)),
  );
  return answers;
}

describeWithPgBouncer('behind PgBouncer in transaction mode', () => {
  let pooler: PgBouncer;
  let database: TestDatabase;

  beforeAll(async () => {
    pooler = await startPgBouncer(process.env[SERVER_URL_VARIABLE]!, [roles().app]);
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await pooler?.stop();
    await database?.drop();
  });

  describe('with DATABASE_POOLER=transaction', () => {
    let service: TestService;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await new WebhookReceiver().listen();
      service = await startTestService(
        { DATABASE_URL: pooler.through(database.url), DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.url, NOTIFICATION_POLL_MS: '50' },
        database,
      );
    });

    afterAll(async () => {
      await service?.stop();
      await receiver?.close();
    });

    it('takes a token, issues in one call, lists, answers GraphQL, delivers a webhook and serves the public page', async () => {
      const acme = await signIn(service, 'acme');
      const hook = await acme.rest('POST', '/webhooks', { url: receiver.url('/hook'), events: ['certificate.issued'], description: 'pooler' });
      expect(hook.status).toBe(201);
      const make = factories(acme);
      const certificate = await make.certificate();
      expect(certificate.status).toBe('issued');
      for (let round = 0; round < 3; round++) expect(new Set(await listPages(acme))).toEqual(new Set([200]));
      const graphql = await acme.graphql('{ certificates(first: 5) { edges { node { uuid status } } } }');
      expect(graphql.body.errors).toBeUndefined();
      expect(graphql.body.data.certificates.edges.map(({ node }: any) => node.uuid)).toContain(certificate.uuid);
      await until(() => receiver.at('/hook').length > 0, 'the webhook delivery');
      expect(receiver.at('/hook')[0]!.body).toContain(certificate.uuid);
      const page = await fetch(`${service.url}/verify/${certificate.uuid}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(certificate.uuid);
    });
  });

  describe('without DATABASE_POOLER', () => {
    let service: TestService;
    let loose: PgBouncer;
    const logged: string[] = [];

    beforeAll(async () => {
      // This PgBouncer swallows the session timeouts, so the service connects and meets the next problem.
      loose = await startPgBouncer(process.env[SERVER_URL_VARIABLE]!, [roles().app], { ignoreTimeouts: true });
      service = await startTestService(
        { ...NO_BACKGROUND_WORK, DATABASE_URL: loose.through(database.url) },
        database,
        createLogger('error', { write: (line: string) => logged.push(line) }),
      );
    });

    afterAll(async () => {
      await service?.stop();
      await loose?.stop();
    });

    // Which of the two a request meets depends on the server session PgBouncer hands it: one that never
    // prepared the page statement, or one where another client already did.
    it('fails list pages: the named page statement is missing from, or already in, the next server session', async () => {
      const acme = await signIn(service, 'acme');
      const answers = [...(await listPages(acme)), ...(await listPages(acme)), ...(await listPages(acme))];
      expect(answers).toContain(500);
      expect(logged.join('\n')).toMatch(/prepared statement \\"q_[0-9a-f]+\\" (does not exist|already exists)/);
    });
  });
});
