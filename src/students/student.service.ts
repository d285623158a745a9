import type { RequestContext } from '../context/request-context.js';
import { ensureUnique } from '../db/lookup.js';
import { deletePagesOf } from '../portfolios/portfolio-page.service.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { externalIdViolation } from '../resources/external-id.js';
import { Student } from './student.entity.js';
import type { StudentInput } from './student.inputs.js';

const EMAIL_TAKEN = { email: ['The email has already been taken.'] };

/** Students: emails are unique per tenant among live students and compared case-insensitively. */
export class StudentService extends ResourceService<Student, StudentInput> {
  protected readonly entity = Student;
  protected readonly label = 'Student';
  protected readonly defaults: Partial<StudentInput> = { gender: null, socialName: null, externalId: null };
  protected readonly uniqueViolations = { students_email_unique: EMAIL_TAKEN, ...externalIdViolation('students') };

  protected filter(where: { email?: string } | undefined): Record<string, unknown> {
    const filter = super.filter(where);
    if (typeof filter.email === 'string') filter.email = filter.email.trim().toLowerCase();
    return filter;
  }

  protected async apply(ctx: RequestContext, row: Student, input: Partial<StudentInput>): Promise<void> {
    const email = input.email?.trim().toLowerCase();
    assignPresent(row, email === undefined ? input : { ...input, email }, ['name', 'email', 'dateOfBirth', 'gender', 'socialName']);
    if (email !== undefined) await ensureUnique(ctx.em, Student, { email }, row.uuid, 'email');
    await this.applyExternalId(ctx, row, input);
  }

  protected async beforeDelete(ctx: RequestContext, rows: Student[]): Promise<void> {
    await deletePagesOf(ctx, rows);
  }
}

export const students = new StudentService();
