import type { EntityManager } from '@mikro-orm/postgresql';
import { PAST_EXPIRY_SQL } from './certificate-rules.js';

/** The columns `certificateFactsOfRow` reads, for statements that return certificates as rows. */
const CERTIFICATE_FACT_COLUMNS =
  'uuid, tenant_uuid, status, issued_at, expires_at, revoked_at, revocation_reason, public_verification_url, institution_uuid, course_uuid, student_uuid';

// One statement across all tenants: atomic, idempotent, and safe with any number of server processes.
const EXPIRE_OVERDUE = `update certificates set status = 'expired', updated_at = now() where ${PAST_EXPIRY_SQL} and deleted_at is null`;

/** issued → expired for every live certificate of every tenant past its expiry; returns them as rows for `certificateFactsOfRow`. */
export async function expireOverdueCertificates(tx: EntityManager): Promise<Record<string, unknown>[]> {
  return tx.execute<Record<string, unknown>[]>(`${EXPIRE_OVERDUE} returning ${CERTIFICATE_FACT_COLUMNS}`);
}

/** The course and enrollment a certificate names, read across tenants by its uuid. */
export async function courseAndEnrollmentOf(
  em: EntityManager,
  certificateUuid: string,
): Promise<{ course_uuid: string; enrollment_uuid: string | null } | undefined> {
  const [row] = await em.execute<{ course_uuid: string; enrollment_uuid: string | null }[]>(
    'select course_uuid, enrollment_uuid from certificates where uuid = ?',
    [certificateUuid],
  );
  return row;
}
