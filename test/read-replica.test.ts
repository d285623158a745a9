import { jest } from '@jest/globals';
import { qrPng } from './support/qr-png.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { freePort } from './support/open-badges.js';
import { hasDebianPostgres, type ReplicatedCluster, type Server, startReplicatedCluster } from './support/replicated-cluster.js';
import { type ApiClient, NO_BACKGROUND_WORK, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

/**
 * Public reads on a real streaming replica (`pg_basebackup -R` of a Debian PostgreSQL 15 primary):
 * which server answered is read from each server's pg_stat_statements, and a replica whose replay is
 * paused shows what it has not seen.
 */

jest.setTimeout(240_000);

const MAX_LAG_SECONDS = 2;
const describeWithPostgres = hasDebianPostgres() ? describe : describe.skip;
if (!hasDebianPostgres()) console.warn('read-replica tests skipped: Debian PostgreSQL 15 (/usr/lib/postgresql/15/bin) is not installed');

let cluster: ReplicatedCluster;
let service: TestService;
let base: string;
let acme: ApiClient;
let world: { certificate: Record<string, any>; page: Record<string, any>; signedFile: string };

/** The service's reads of `table` (certificates unless named) on `server` so far: its statements' calls, as pg_stat_statements counts them. */
async function certificateReads(server: Server, table = 'certificates'): Promise<number> {
  const [{ calls }] = await cluster.query<{ calls: number }>(
    server,
    `select coalesce(sum(s.calls), 0)::int as calls from pg_stat_statements s join pg_roles r on r.oid = s.userid
      where r.rolname like 'replica_app_%' and s.query ilike 'select%"${table}"%'`,
  );
  return calls;
}

const publicSurfaces = () => {
  const c = world.certificate.uuid;
  return {
    verificationPage: `${base}/verify/${c}`,
    verificationApi: `${base}/api/v1/verify/${c}`,
    openBadges2: `${base}/ob/v2/assertions/${c}`,
    openBadges3: `${base}/ob/v3/credentials/${c}`,
    portfolioPage: `${base}/p/acme/${world.page.slug}`,
    download: `${base}/api/v1/files/${world.signedFile}/download`,
  };
};

const verificationStatus = async () => ((await (await fetch(`${base}/api/v1/verify/${world.certificate.uuid}`)).json()) as any).data.status as string;

beforeAll(async () => {
  if (!hasDebianPostgres()) return;
  cluster = await startReplicatedCluster();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startTestService(
    {
      ...NO_BACKGROUND_WORK,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      DATABASE_REPLICA_URL: cluster.replicaUrl,
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    },
    cluster.database,
  );
  acme = await signIn(service, 'acme');
  const make = factories(acme);
  const image = (await upload(acme, [[await qrPng('replica badge'), 'badge.png']])).body.data[0].uuid;
  const institution = await make.institution({ is_badges_enabled: true, badge_image_uuid: image });
  const student = await make.student();
  const certificate = await make.certificate({ institution_uuid: institution.uuid, student_uuid: student.uuid });
  const page = await make.page(student.uuid, { is_public: true });
  await acme.rest('POST', `/students/${student.uuid}/pages/${page.uuid}/items`, { certificate_uuid: certificate.uuid });
  world = { certificate, page, signedFile: certificate.files.find((file: { type: string }) => file.type === 'certificate').uuid };
  await cluster.caughtUp();
  // The monitor checks every second: wait until public reads reach the replica.
  await until(async () => {
    const before = await certificateReads(cluster.replica);
    await fetch(publicSurfaces().verificationApi);
    return (await certificateReads(cluster.replica)) > before;
  }, 'public reads to reach the replica');
});

afterAll(async () => {
  await service?.stop();
  await cluster?.stop();
});

describeWithPostgres('a read replica (DATABASE_REPLICA_URL)', () => {
  it('serves every public surface from the replica, and none of their certificate (or file) reads from the primary', async () => {
    for (const [surface, url] of Object.entries(publicSurfaces())) {
      // A download reads its file, not the certificate.
      const table = surface === 'download' ? 'files' : 'certificates';
      const replicaBefore = await certificateReads(cluster.replica, table);
      const primaryBefore = await certificateReads(cluster.primary, table);
      const response = await fetch(url, { headers: { accept: 'text/html' } });
      expect([surface, response.status]).toEqual([surface, 200]);
      await response.arrayBuffer();
      expect([surface, (await certificateReads(cluster.replica, table)) - replicaBefore > 0]).toEqual([surface, true]);
      expect([surface, (await certificateReads(cluster.primary, table)) - primaryBefore]).toEqual([surface, 0]);
    }
  });

  it('keeps authenticated reads on the primary, so a client reads its own writes at once', async () => {
    const replicaBefore = await certificateReads(cluster.replica);
    const primaryBefore = await certificateReads(cluster.primary);
    const read = await acme.rest('GET', `/certificates/${world.certificate.uuid}`);
    expect(read.status).toBe(200);
    expect(await certificateReads(cluster.replica)).toBe(replicaBefore);
    expect(await certificateReads(cluster.primary)).toBeGreaterThan(primaryBefore);
  });

  it('sends public reads to the primary while the replica lags more than REPLICA_MAX_LAG_SECONDS, and back once it caught up', async () => {
    await cluster.query(cluster.replica, 'select pg_wal_replay_pause()');
    try {
      const revoked = await acme.rest('POST', `/certificates/${world.certificate.uuid}/revoke`, { reason: 'Issued in error' });
      expect(revoked.status).toBe(200);
      expect((await acme.rest('GET', `/certificates/${world.certificate.uuid}`)).body.data.status).toBe('revoked');
      // The paused replica still has it issued: a public answer saying revoked can only come from the primary.
      await until(async () => (await verificationStatus()) === 'revoked', 'public reads to fall back to the primary');
      const [{ status }] = await cluster.query<{ status: string }>(cluster.replica, `select status from certificates where uuid = '${world.certificate.uuid}'`);
      expect(status).toBe('issued');
      const replicaBefore = await certificateReads(cluster.replica);
      expect(await verificationStatus()).toBe('revoked');
      expect(await certificateReads(cluster.replica)).toBe(replicaBefore);
    } finally {
      await cluster.query(cluster.replica, 'select pg_wal_replay_resume()');
    }
    await cluster.caughtUp();
    await until(async () => {
      const before = await certificateReads(cluster.replica);
      const status = await verificationStatus();
      return status === 'revoked' && (await certificateReads(cluster.replica)) > before;
    }, 'public reads to return to the replica');
  });

  it('keeps answering public reads from the primary when the replica stops', async () => {
    const statuses = async () => {
      const answers: Record<string, number> = {};
      for (const [surface, url] of Object.entries(publicSurfaces())) {
        const response = await fetch(url, { headers: { accept: 'text/html' } });
        await response.arrayBuffer();
        answers[surface] = response.status;
      }
      return answers;
    };
    const fromReplica = await statuses();
    await cluster.replica.stop();
    await until(async () => (await fetch(publicSurfaces().verificationApi)).status === 200, 'public reads to reach the primary');
    expect(await statuses()).toEqual(fromReplica);
    expect(Object.values(fromReplica).every((status) => status < 500)).toBe(true);
  });
});
