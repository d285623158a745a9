import { jest } from '@jest/globals';
import { installSigningIdentity } from '../src/certificates/signing-identity.service.js';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { createSigningIdentity, inspectSignedPdf } from '../src/documents/index.js';
import { Institution } from '../src/institutions/institution.entity.js';
import { createTestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { decodedHeader, SmtpListener } from './support/smtp.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

/** A draft-ready body: an institution, course, student and an uploaded PDF of the api's tenant. */
async function certificateBody(api: ApiClient, studentFields: Record<string, unknown> = {}) {
  const make = factories(api);
  const institution = await make.institution({ name: 'Escola Politécnica' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Civil Engineering' });
  const student = await make.student(studentFields);
  const file = (await upload(api, [[await diplomaPdf(`Diploma ${student.uuid}`), 'diploma.pdf']])).body.data[0];
  return { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.uuid, student };
}

describe('the issuance email', () => {
  it('is delivered once after a restart when the process that issued went away before sending it', async () => {
    const smtp = await new SmtpListener().listen();
    // The first process commits the issuance (and its outbox row) but never delivers: its worker is off,
    // as if it had been killed between the commit and the send.
    const database = await createTestDatabase(); // outlives both processes
    const first = await startTestService({ SMTP_URL: smtp.url, NOTIFICATION_WORKER: 'off' }, database);
    let second: TestService | undefined;
    try {
      const api = await signIn(first, 'acme');
      const { student, ...body } = await certificateBody(api);
      const issued = await api.rest('POST', '/certificates', { ...body, finish: true });
      expect(issued.status).toBe(201);
      await first.stop();
      expect(smtp.to(student.email)).toEqual([]);

      second = await startTestService({ SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '100' }, database);
      await until(() => smtp.to(student.email).length > 0, 'the delivery after the restart');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(smtp.to(student.email)).toHaveLength(1);
      expect(decodedHeader(smtp.to(student.email)[0]!.raw, 'Subject')).toBe('Your certificate for Civil Engineering from Escola Politécnica');
    } finally {
      await second?.stop();
      await database.drop();
      await smtp.close();
    }
  });
});

describe('signing identities', () => {
  let service: TestService;
  let api: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ NOTIFICATION_WORKER: 'off' });
    api = await signIn(service, 'acme');
  });
  afterAll(() => service.stop());

  const signerOf = async (certificate: { files: { type: string; uuid: string }[] }) => {
    const file = certificate.files.find((entry) => entry.type === 'certificate')!;
    const pdf = Buffer.from(await (await fetch(`${service.url}/api/v1/files/${file.uuid}/download`)).arrayBuffer());
    return inspectSignedPdf(pdf);
  };

  it('an operator-installed PKCS#12 signs the institution’s certificates from then on; older documents still verify', async () => {
    const { student: _first, ...body } = await certificateBody(api);
    const before = (await api.rest('POST', '/certificates', { ...body, finish: true })).body.data;
    const generated = await signerOf(before);
    expect(generated).toMatchObject({ intact: true, signerCommonName: 'Escola Politécnica' });

    const [tenant] = await service.orm.em.getConnection().execute(`select uuid from tenants where identifier = 'acme'`);
    const em = scopeToTenant(service.orm.em.fork(), tenant.uuid);
    const institution = await em.findOneOrFail(Institution, { uuid: body.institution_uuid });
    const operator = createSigningIdentity({ institutionName: 'Escola Politécnica (qualified)', country: 'BR' });
    await installSigningIdentity({ em, signingKeys: service.runtime.signingKeys }, institution, operator.p12, operator.passphrase);

    const { student: _second, ...next } = await certificateBody(api);
    const after = (await api.rest('POST', '/certificates', { ...next, institution_uuid: body.institution_uuid, course_uuid: body.course_uuid, finish: true }))
      .body.data;
    expect(await signerOf(after)).toMatchObject({
      intact: true,
      signerCommonName: 'Escola Politécnica (qualified)',
      certificateFingerprintSha256: operator.fingerprintSha256,
    });

    const older = before.files.find((entry: { type: string }) => entry.type === 'certificate');
    const pdf = await (await fetch(`${service.url}/api/v1/files/${older.uuid}/download`)).arrayBuffer();
    const verdict = await fetch(`${service.url}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: pdf });
    expect(((await verdict.json()) as any).data).toMatchObject({ verdict: 'authentic', signatures: [{ signed_by_issuer: true }] });
  });

  it('concurrent first issuances of a new institution settle on one generated key, none failing', async () => {
    const make = factories(api);
    const institution = await make.institution({ name: 'Instituto Novo' });
    const course = await make.course({ institution_uuid: institution.uuid });
    const bodies = await Promise.all(
      Array.from({ length: 4 }, async (_, index) => {
        const student = await make.student();
        const file = (await upload(api, [[await diplomaPdf(`Race ${index} ${student.uuid}`), 'diploma.pdf']])).body.data[0];
        return { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.uuid, finish: true };
      }),
    );
    const responses = await Promise.all(bodies.map((body) => api.rest('POST', '/certificates', body)));
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
    const fingerprints = new Set<string>();
    for (const response of responses) fingerprints.add((await signerOf(response.body.data)).certificateFingerprintSha256!);
    expect(fingerprints.size).toBe(1);
    const [row] = await service.orm.em
      .getConnection()
      .execute('select count(*)::int as identities from signing_identities where institution_uuid = ?', [institution.uuid]);
    expect(row.identities).toBe(1);
  });

  it('GraphQL creates and issues in one mutation, with the same rules', async () => {
    const { student, ...body } = await certificateBody(api, { name: 'João Pereira' });
    const input = {
      institutionUuid: body.institution_uuid,
      courseUuid: body.course_uuid,
      studentUuid: body.student_uuid,
      fileUuid: body.file_uuid,
      finish: true,
    };
    const mutation =
      'mutation($input: CertificateInput!) { createCertificate(input: $input) { uuid status issuedAt recipient { displayName } files { type mimeType file } } }';
    const response = await api.graphql(mutation, { input });
    expect(response.body.data.createCertificate).toMatchObject({
      status: 'issued',
      issuedAt: expect.stringMatching(/\.\d{6}Z$/),
      recipient: { displayName: 'João Pereira' },
      files: [{ type: 'source' }, { type: 'certificate', mimeType: 'application/pdf' }, { type: 'transcript', mimeType: 'application/pdf' }],
    });
    const again = await api.graphql(mutation, { input });
    expect(again.body.errors[0]).toMatchObject({
      extensions: {
        code: 'BAD_USER_INPUT',
        errors: { fileUuid: [expect.stringMatching(/^The file uuid has already been used by certificate [0-9a-f-]{36}\.$/)] },
      },
    });
    expect(student.uuid).toBe(body.student_uuid);
  });
});
