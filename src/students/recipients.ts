import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { invalid } from '../errors/domain-error.js';
import type { RecipientInput } from './recipient.inputs.js';
import { Student } from './student.entity.js';

/** The student a certificate names by `recipient`, and whether it is new (to be inserted with the certificate). */
export interface ResolvedRecipient {
  student: Student;
  isNew: boolean;
}

/**
 * The student a `recipient` names: by external id, else by email (an existing student without an
 * external id takes the one given), else a new student, not yet persisted: the caller writes it in
 * the transaction that writes the certificate, so a refused certificate registers nobody.
 */
export async function resolveRecipient(ctx: RequestContext, recipient: RecipientInput): Promise<ResolvedRecipient> {
  const email = recipient.email.trim().toLowerCase();
  const externalId = recipient.externalId ?? null;
  const byExternalId = externalId == null ? null : await ctx.em.findOne(Student, { externalId });
  if (byExternalId) return { student: byExternalId, isNew: false };
  const byEmail = await ctx.em.findOne(Student, { email });
  if (byEmail && externalId != null && byEmail.externalId != null) {
    throw invalid({ 'recipient.externalId': ['The student with this email has another external id.'] });
  }
  if (byEmail) {
    if (externalId != null) byEmail.externalId = externalId;
    return { student: byEmail, isNew: false };
  }
  if (!recipient.dateOfBirth)
    throw invalid({ 'recipient.dateOfBirth': ['The recipient date of birth field is required when the recipient is not a student yet.'] });
  const student = Object.assign(new Student(), {
    name: recipient.name.trim(),
    email,
    dateOfBirth: recipient.dateOfBirth,
    externalId,
    gender: null,
    socialName: null,
  });
  return { student, isNew: true };
}

/**
 * Whether a write failed because a concurrent request registered the same recipient first: the
 * write is then run once more, and finds that student (one student per email or external id).
 */
export function lostRecipientRace(error: unknown): boolean {
  const constraint = (error as { constraint?: string }).constraint;
  return error instanceof UniqueConstraintViolationException && (constraint === 'students_email_unique' || constraint === 'students_external_id_unique');
}
