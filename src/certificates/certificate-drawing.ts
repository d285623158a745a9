import type { Course } from '../courses/course.entity.js';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import type { PlaceholderValues } from '../templates/placeholders.js';
import { displayName } from './certificate-rules.js';

/** The parties a certificate's page names. */
export interface DrawnParties {
  institution: Pick<Institution, 'name'>;
  student: Pick<Student, 'name' | 'socialName'>;
  course: Pick<Course, 'name' | 'workload'>;
  enrollment: Pick<Enrollment, 'grade' | 'completedAt'> | null;
}

/** What a template's placeholders print for one certificate: the printed name is the social name when set (displayName). */
export function placeholderValues(
  parties: DrawnParties,
  certificate: { uuid: string; attributes?: Record<string, unknown> | null },
  issuedAt: Date | null,
  locale = 'en',
): PlaceholderValues {
  return {
    values: {
      'student.name': displayName(parties.student),
      'course.name': parties.course.name,
      'course.workload': parties.course.workload ?? null,
      'institution.name': parties.institution.name,
      issued_at: issuedAt,
      grade: parties.enrollment?.grade ?? null,
      'certificate.uuid': certificate.uuid,
      'enrollment.completed_at': parties.enrollment?.completedAt ?? null,
    },
    attributes: certificate.attributes ?? {},
    locale,
  };
}
