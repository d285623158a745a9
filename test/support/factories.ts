import { upload } from './files.js';
import { diplomaPdf } from './pdf.js';
import type { ApiClient } from './service.js';

type Row = Record<string, any>;
let sequence = 0;
const next = () => ++sequence;

async function created(api: ApiClient, path: string, body: Row): Promise<Row> {
  const response = await api.rest('POST', path, body);
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** Valid rows in one line each, over the REST API of the given tenant; pass only what matters. */
export function factories(api: ApiClient) {
  const make = {
    /** With badges enabled it also gets the contact e-mail they require. */
    institution: (fields: Row = {}) =>
      created(api, '/institutions', {
        name: `Institution ${next()}`,
        country: 'BR',
        ...(fields.is_badges_enabled ? { email: `registrar${next()}@example.edu` } : {}),
        ...fields,
      }),
    module: async (fields: Row = {}) =>
      created(api, '/modules', { name: `Module ${next()}`, institution_uuid: fields.institution_uuid ?? (await make.institution()).uuid, ...fields }),
    course: async (fields: Row = {}) =>
      created(api, '/courses', { name: `Course ${next()}`, institution_uuid: fields.institution_uuid ?? (await make.institution()).uuid, ...fields }),
    group: async (courseUuid?: string, fields: Row = {}) =>
      created(api, `/courses/${courseUuid ?? (await make.course()).uuid}/modules/groups`, { name: `Group ${next()}`, ...fields }),
    cohort: async (fields: Row = {}) =>
      created(api, '/cohorts', { code: `C-${next()}`, course_uuid: fields.course_uuid ?? (await make.course()).uuid, ...fields }),
    student: (fields: Row = {}) =>
      created(api, '/students', { name: `Student ${next()}`, email: `student${next()}@example.org`, date_of_birth: '2001-02-03', ...fields }),
    enrollment: async (fields: Row = {}) =>
      created(api, '/enrollments', {
        student_uuid: fields.student_uuid ?? (await make.student()).uuid,
        course_uuid: fields.course_uuid ?? (await make.course()).uuid,
        enrolled_at: '2025-03-01',
        ...fields,
      }),
    template: async (fields: Row = {}) =>
      created(api, '/certificate-templates', {
        name: `Template ${next()}`,
        version: '1.0',
        path: '/templates/classic.pdf',
        institution_uuid: fields.institution_uuid ?? (await make.institution()).uuid,
        ...fields,
      }),
    /** An issued certificate (pass `finish: false` for a draft) from a freshly uploaded real PDF. */
    certificate: async (fields: Row = {}) => {
      const institution_uuid = fields.institution_uuid ?? (await make.institution()).uuid;
      const course_uuid = fields.course_uuid ?? (await make.course({ institution_uuid })).uuid;
      const student_uuid = fields.student_uuid ?? (await make.student()).uuid;
      const file = await upload(api, [[await diplomaPdf(`Diploma ${next()} ${Math.random()}`), 'diploma.pdf']]);
      if (file.status !== 201) throw new Error(`upload answered ${file.status}`);
      return created(api, '/certificates', { institution_uuid, course_uuid, student_uuid, file_uuid: file.body.data[0].uuid, finish: true, ...fields });
    },
    page: async (studentUuid?: string, fields: Row = {}) =>
      created(api, `/students/${studentUuid ?? (await make.student()).uuid}/pages`, { slug: `page-${next()}-${Date.now().toString(36)}`, ...fields }),
  };
  return make;
}

export type Factories = ReturnType<typeof factories>;
