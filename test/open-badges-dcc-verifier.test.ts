import { achievementCredentialSchemaErrors } from './support/achievement-credential-schema.js';
import { dccVerify, type DccRegistry } from './support/dcc-verifier.js';
import { factories } from './support/factories.js';
import { uploadedUuid } from './support/files.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';
import { startTlsFront, type TlsFront } from './support/tls-front.js';

/**
 * The Digital Credentials Consortium's verifier (what VerifierPlus and the Learner Credential Wallet
 * run) against the service as the web sees it: https with a certificate from a CA the verifier was
 * told to trust, did:web ids under that origin, the status list fetched by the verifier itself.
 */
let front: TlsFront;
let service: TestService;
let acme: ApiClient;
let registries: DccRegistry[];
let institution: Record<string, any>;
let certificate: Record<string, any>;
let credential: Record<string, any>;

const BADGE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/></svg>';
const logOf = (result: any) => Object.fromEntries((result.log ?? []).map((step: any) => [step.id, step.valid ?? step.error?.name]));

beforeAll(async () => {
  front = await startTlsFront();
  service = await startTestService({ PUBLIC_BASE_URL: front.origin });
  front.target = service.url;
  acme = await signIn(service, 'acme');
  const make = factories(acme);
  const badge = await uploadedUuid(acme, Buffer.from(BADGE_SVG), 'badge.svg');
  institution = await make.institution({ is_badges_enabled: true, badge_image_uuid: badge, website: 'https://uni.example' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', description: 'Pipelines and streams.' });
  certificate = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, expires_at: '2035-06-30' });
  const response = await acme.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`);
  credential = response.body.data;
  // A registry of trusted issuers in the DCC's legacy format, hosted by the verifier's operator.
  front.documents.set('/registry.json', {
    meta: { created: '2026-11-26' },
    registry: { [credential.issuer.id]: { name: institution.name, url: 'https://uni.example', location: 'Test City' } },
  });
  registries = [{ name: 'Test operator registry', type: 'dcc-legacy', url: `${front.origin}/registry.json` }];
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await front?.close();
});

describe('@digitalcredentials/verifier-core on an issued OB 3.0 credential, over https', () => {
  let trusted: any;
  let unlisted: any;
  let tampered: any;

  beforeAll(async () => {
    const changed = structuredClone(credential);
    changed.credentialSubject.achievement.name = 'Quantum Engineering';
    [trusted, unlisted, tampered] = await dccVerify(
      [
        { credential, registries },
        { credential, registries: [] },
        { credential: changed, registries },
      ],
      front.caFile,
    );
  }, 120_000);

  it('verifies the signature by the did:web key, the expiry, the status list, the registry entry and 1EdTech’s schema', () => {
    expect(credential.issuer.id).toBe(`did:web:localhost%3A${new URL(front.origin).port}:ob:v3:issuers:${institution.uuid}`);
    expect(credential.credentialStatus.statusListCredential.startsWith(`${front.origin}/`)).toBe(true);
    expect(trusted.errors).toBeUndefined();
    expect(logOf(trusted)).toEqual({ valid_signature: true, expiration: true, revocation_status: true, registered_issuer: true });
    expect(trusted.log.find((step: any) => step.id === 'registered_issuer')).toMatchObject({
      matchingIssuers: [{ issuer: { federation_entity: { organization_name: institution.name } } }],
      uncheckedRegistries: [],
    });
    expect(trusted.additionalInformation).toEqual([
      {
        id: 'schema_check',
        results: [
          {
            schema: 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json',
            result: { valid: true },
            source: 'Schema was listed in the credentialSchema property of the VC',
          },
        ],
      },
    ]);
    expect(achievementCredentialSchemaErrors(credential)).toEqual([]);
  });

  it('says the issuer is not registered when no registry lists it, the signature still valid', () => {
    expect(logOf(unlisted)).toEqual({ valid_signature: true, expiration: true, revocation_status: true, registered_issuer: false });
  });

  it('refuses a credential whose signed content was changed', () => {
    expect(tampered.log).toBeUndefined();
    expect(tampered.errors).toEqual([expect.objectContaining({ name: 'invalid_signature', message: 'The signature is not valid.' })]);
  });

  it('sees the revocation on the status list', async () => {
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);
    const [revoked] = await dccVerify([{ credential, registries }], front.caFile);
    expect(logOf(revoked)).toEqual({ valid_signature: true, expiration: true, revocation_status: false, registered_issuer: true });
  }, 60_000);
});
