import { isPastExpiry, PAST_EXPIRY_SQL } from '../src/certificates/certificate-rules.js';
import { CertificateStatus } from '../src/certificates/certificate.entity.js';
import { DISPLAY_RANK } from '../src/courses/course-module.entity.js';
import { compareAttachments } from '../src/courses/module-order.js';
import { startTestService, type TestService } from './support/service.js';

// Rules that also run in the database as SQL must agree with their TypeScript home on the boundaries.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const sql = (query: string, params: unknown[] = []) => service.orm.em.getConnection().execute(query, params, 'all');

describe('the expiry rule in SQL', () => {
  it('agrees with isPastExpiry: expired at the expiry instant, not a moment before it', async () => {
    const [row] = await sql(`select now() as now,
      (select ${PAST_EXPIRY_SQL} from (select 'issued' as status, now() as expires_at) c) as at_instant,
      (select ${PAST_EXPIRY_SQL} from (select 'issued' as status, now() + interval '1 millisecond' as expires_at) c) as before_instant,
      (select ${PAST_EXPIRY_SQL} from (select 'revoked' as status, now() - interval '1 day' as expires_at) c) as revoked,
      (select coalesce(${PAST_EXPIRY_SQL}, false) from (select 'issued' as status, null::timestamptz as expires_at) c) as no_expiry`);
    const now = new Date(row.now);
    const ts = {
      at_instant: isPastExpiry({ status: CertificateStatus.issued, expiresAt: now }, now),
      before_instant: isPastExpiry({ status: CertificateStatus.issued, expiresAt: new Date(now.getTime() + 1) }, now),
      revoked: isPastExpiry({ status: CertificateStatus.revoked, expiresAt: new Date(now.getTime() - 86_400_000) }, now),
      no_expiry: isPastExpiry({ status: CertificateStatus.issued, expiresAt: null }, now),
    };
    expect({ at_instant: row.at_instant, before_instant: row.before_instant, revoked: row.revoked, no_expiry: row.no_expiry }).toEqual(ts);
    expect(ts).toEqual({ at_instant: true, before_instant: false, revoked: false, no_expiry: false });
  });
});

describe('the module display order in SQL', () => {
  it('agrees with compareAttachments on group order, missing orders, names that differ in case and accents, and ungrouped rows', async () => {
    const groups = [
      { uuid: 'g-upper', name: 'B', order: 1 },
      { uuid: 'g-lower', name: 'b', order: 1 },
      { uuid: 'g-accent', name: 'Á', order: 1 },
      { uuid: 'g-first', name: 'Zeta', order: 0 },
      { uuid: 'g-none', name: 'A', order: null },
    ];
    const rows = [
      { uuid: 'r1', groupUuid: null, order: 1 },
      { uuid: 'r2', groupUuid: 'g-none', order: 1 },
      { uuid: 'r3', groupUuid: 'g-accent', order: 1 },
      { uuid: 'r4', groupUuid: 'g-lower', order: 2 },
      { uuid: 'r5', groupUuid: 'g-lower', order: 1 },
      { uuid: 'r6', groupUuid: 'g-upper', order: 1 },
      { uuid: 'r7', groupUuid: 'g-first', order: 5 },
      { uuid: 'r8', groupUuid: null, order: 0 },
    ];
    const values = (count: number, width: number) => Array.from({ length: count }, () => `(${Array(width).fill('?').join(', ')})`).join(', ');
    // A CTE named module_groups stands in for the table inside DISPLAY_RANK's subqueries; its names carry
    // a linguistic collation, so the order holds whatever the database's default collation is.
    const ranked = await sql(
      `with "module_groups"("uuid", "name", "order") as (select "uuid", "name" collate "und-x-icu", "order" from (values ${values(groups.length, 3)}) v("uuid", "name", "order"))
       select ranked."uuid" from (values ${values(rows.length, 3)}) as ranked("uuid", "group_uuid", "order") order by ${DISPLAY_RANK}`,
      [...groups.flatMap((g) => [g.uuid, g.name, g.order]), ...rows.flatMap((r) => [r.uuid, r.groupUuid, r.order])],
    );
    const byUuid = new Map(groups.map((group) => [group.uuid, group]));
    const sorted = rows.map((row) => ({ ...row, group: row.groupUuid ? byUuid.get(row.groupUuid)! : null })).sort(compareAttachments);
    expect(ranked.map((row) => row.uuid)).toEqual(sorted.map((row) => row.uuid));
    expect(sorted.map((row) => row.uuid)).toEqual(['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r8', 'r1']);
  });
});
