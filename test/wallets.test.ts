import { jest } from '@jest/globals';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { OpenID4VCIClientV1_0_15 } from '@sphereon/oid4vci-client';
import { achievementCredentialSchemaErrors } from './support/achievement-credential-schema.js';
import { clrAchievementCredentialSchemaErrors, clrCredentialSchemaErrors } from './support/clr-credential-schema.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { freePort } from './support/open-badges.js';
import { referenceRevoked, referenceVerify } from './support/open-badges-v3.js';
import { diplomaPdf, pdfText } from './support/pdf.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';
import { SmtpListener } from './support/smtp.js';
import { until } from './support/wait.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(180_000);

let service: TestService;
let base: string;
let acme: ApiClient;
let globex: ApiClient;
let smtp: SmtpListener;

beforeAll(async () => {
  smtp = await new SmtpListener().listen();
  // The public base URL is the server's real address: the verifier resolves the issuer's did:web there.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: base, SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '100', WALLET_PURGE_MS: '200' });
  acme = await signIn(service, 'acme');
  globex = await signIn(service, 'globex');
});

afterAll(async () => {
  await service?.stop();
  await smtp?.close();
});

const BADGE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="3"/></svg>';

async function uploadFile(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}`);
  return response.body.data[0].uuid;
}

/** A badges-enabled institution, a course of three modules (two in a group), an enrollment graded 8.75, and the issued certificate. */
async function issuedCertificate(api: ApiClient, email = 'ana.souza@example.org', institutionFields: Record<string, unknown> = {}) {
  const make = factories(api);
  const institution = await make.institution({
    is_badges_enabled: true,
    badge_image_uuid: await uploadFile(api, Buffer.from(BADGE_SVG), 'badge.svg'),
    ...institutionFields,
  });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', description: 'Pipelines.', workload: 360 });
  const sql = await make.module({ institution_uuid: institution.uuid, name: 'SQL Foundations', code: 'SQL1', workload: 60, credits: 4 });
  const streams = await make.module({ institution_uuid: institution.uuid, name: 'Stream Processing', workload: 80, credits: 6 });
  const ethics = await make.module({ institution_uuid: institution.uuid, name: 'Data Ethics', workload: 20 });
  const group = await make.group(course.uuid, { name: 'Core' });
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, {
    modules: [
      { module_uuid: ethics.uuid },
      { module_uuid: sql.uuid, course_module_group_uuid: group.uuid, order: 1 },
      { module_uuid: streams.uuid, course_module_group_uuid: group.uuid, order: 2 },
    ],
  });
  const student = await make.student({ name: 'Ana Souza', email });
  const enrollment = await make.enrollment({
    student_uuid: student.uuid,
    course_uuid: course.uuid,
    grade: 8.75,
    completion_status: 'completed',
    completed_at: '2026-06-30',
  });
  const response = await api.rest('POST', '/certificates', {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    enrollment_uuid: enrollment.uuid,
    file_uuid: await uploadFile(api, await diplomaPdf('Diploma'), 'diploma.pdf'),
    finish: true,
  });
  if (response.status !== 201) throw new Error(`issue answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { certificate: response.body.data, institution, course };
}

const getJson = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe('the transcript as a CLR 2.0 ClrCredential', () => {
  let certificate: Record<string, any>;
  let course: Record<string, any>;
  let clr: Record<string, any>;

  beforeAll(async () => {
    ({ certificate, course } = await issuedCertificate(acme));
    const response = await getJson(certificate.clr_url, { origin: 'https://wallet.example' });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    clr = response.body;
  });

  it('is linked from the certificate (REST clr_url, GraphQL clrUrl) at its public id', async () => {
    expect(certificate.clr_url).toBe(`${base}/clr/v2/credentials/${certificate.uuid}`);
    expect(clr.id).toBe(certificate.clr_url);
    const graphql = await acme.graphql('query($uuid: ID!) { certificate(uuid: $uuid) { clrUrl } }', { uuid: certificate.uuid });
    expect(graphql.body.data.certificate.clrUrl).toBe(certificate.clr_url);
    // Another tenant cannot reach the certificate; the public id is the same for everyone.
    expect((await globex.rest('GET', `/certificates/${certificate.uuid}`)).status).toBe(404);
  });

  it('conforms to 1EdTech’s published CLR 2.0 schema, and every AchievementCredential it carries to the CLR and OB 3.0 schemas', () => {
    expect(clrCredentialSchemaErrors(clr)).toEqual([]);
    expect(clr.credentialSchema).toEqual([
      { id: 'https://purl.imsglobal.org/spec/clr/v2p0/schema/json/clr_v2p0_clrcredential_schema.json', type: '1EdTechJsonSchemaValidator2019' },
    ]);
    expect(clr.credentialSubject.verifiableCredential).toHaveLength(4);
    for (const nested of clr.credentialSubject.verifiableCredential) {
      expect(clrAchievementCredentialSchemaErrors(nested)).toEqual([]);
      expect(achievementCredentialSchemaErrors(nested)).toEqual([]);
    }
    // The schema is not a formality: it refuses a ClrCredential without a subject's credentials or with a bad association.
    const { verifiableCredential: _credentials, ...emptied } = clr.credentialSubject;
    expect(clrCredentialSchemaErrors({ ...clr, credentialSubject: emptied })).not.toEqual([]);
    const badAssociation = { ...clr.credentialSubject, association: [{ type: 'Association', associationType: 'isCousinOf', sourceId: 'a', targetId: 'b' }] };
    expect(clrCredentialSchemaErrors({ ...clr, credentialSubject: badAssociation })).not.toEqual([]);
  });

  it('lists the transcript’s modules in its order with workload and credits, the course with the grade, and module → course associations', async () => {
    const transcript = await fetch(`${service.url}/api/v1/files/${certificate.files.find((file: any) => file.type === 'transcript').uuid}/download`);
    const text = await pdfText(Buffer.from(await transcript.arrayBuffer()));
    const achievements = clr.credentialSubject.achievement;
    const modules = achievements.slice(0, -1);
    // The transcript lists the group first (in its order), then "Other modules".
    expect(modules.map((module: any) => module.name)).toEqual(['SQL Foundations', 'Stream Processing', 'Data Ethics']);
    for (const module of modules) expect(text).toContain(module.name);
    expect(modules[0]).toMatchObject({ achievementType: 'Course', humanCode: 'SQL1', creditsAvailable: 4, description: expect.stringContaining('60 hours') });
    expect(modules[2].creditsAvailable).toBeUndefined();
    const courseCredential = clr.credentialSubject.verifiableCredential.at(-1);
    expect(courseCredential.credentialSubject.achievement.id).toBe(`${base}/ob/v3/achievements/${course.uuid}`);
    expect(courseCredential.credentialSubject.result).toEqual([expect.objectContaining({ value: '8.75' })]);
    expect(text).toContain('8.75');
    expect(clr.credentialSubject.association).toEqual(
      modules.map((module: any) => ({
        type: 'Association',
        associationType: 'isChildOf',
        sourceId: module.id,
        targetId: courseCredential.credentialSubject.achievement.id,
      })),
    );
  });

  it('verifies with the Digital Bazaar libraries, as does each credential inside, on the OB 3.0 credential’s status entry', async () => {
    const openBadge = (await acme.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
    expect(clr.credentialStatus).toEqual(openBadge.credentialStatus);
    const result = await referenceVerify(clr);
    expect(result.verified).toBe(true);
    for (const nested of clr.credentialSubject.verifiableCredential) expect((await referenceVerify(nested)).verified).toBe(true);
    // Signed once, then served as stored.
    expect((await getJson(certificate.clr_url)).body).toEqual(clr);
  });

  it('answers 404 for a draft or an unknown uuid and 410 once the certificate is deleted', async () => {
    expect((await getJson(`${base}/clr/v2/credentials/${crypto.randomUUID()}`)).status).toBe(404);
    const { certificate: doomed } = await issuedCertificate(acme, 'doomed@example.org');
    expect((await acme.rest('DELETE', `/certificates/${doomed.uuid}`)).status).toBeLessThan(300);
    expect((await getJson(doomed.clr_url)).status).toBe(410);
  });
});

/** A wallet key: Ed25519, as a did:key. */
async function walletKey() {
  const keyPair = await Ed25519Multikey.generate();
  const did = `did:key:${keyPair.publicKeyMultibase}`;
  const kid = `${did}#${keyPair.publicKeyMultibase}`;
  const signer = keyPair.signer();
  const sign = async (header: object, payload: object) => {
    const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    const signature = await signer.sign({ data: Buffer.from(input) });
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  };
  return { did, kid, sign };
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

async function post(path: string, init: RequestInit) {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, body: (await response.json()) as any };
}

async function offer(api: ApiClient, certificateUuid: string, body: Record<string, unknown> = {}) {
  const response = await api.rest('POST', `/certificates/${certificateUuid}/offers`, body);
  if (response.status !== 201) throw new Error(`offer answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** The pre-authorized code behind an offer's deep link, as a wallet reads it. */
async function codeOf(offerUrl: string): Promise<string> {
  const uri = new URL(offerUrl).searchParams.get('credential_offer_uri')!;
  const document = (await getJson(uri)).body;
  return document.grants[PRE_AUTH]['pre-authorized_code'];
}

async function token(code: string, txCode?: string) {
  return post('/oid4vci/token', form({ grant_type: PRE_AUTH, 'pre-authorized_code': code, ...(txCode ? { tx_code: txCode } : {}) }));
}

async function credentialRequest(accessToken: string, jwt: string, configuration = 'OpenBadgeCredential_ldp_vc') {
  return post('/oid4vci/credential', {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: configuration, proofs: { jwt: [jwt] } }),
  });
}

const nonce = async () => (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
const proofHeader = (kid: string) => ({ typ: 'openid4vci-proof+jwt', alg: 'EdDSA', kid });
const now = () => Math.floor(Date.now() / 1000);

describe('OpenID4VCI: a wallet claims the credentials with a pre-authorized code', () => {
  let certificate: Record<string, any>;

  beforeAll(async () => {
    ({ certificate } = await issuedCertificate(acme, 'wallet.owner@example.org'));
  });

  it('publishes issuer and authorization server metadata for OB 3.0 and CLR 2.0 (ldp_vc, eddsa-rdfc-2022)', async () => {
    const metadata = (await getJson(`${base}/.well-known/openid-credential-issuer`)).body;
    expect(metadata).toMatchObject({ credential_issuer: base, credential_endpoint: `${base}/oid4vci/credential`, nonce_endpoint: `${base}/oid4vci/nonce` });
    expect(Object.keys(metadata.credential_configurations_supported)).toEqual(['OpenBadgeCredential_ldp_vc', 'ClrCredential_ldp_vc']);
    expect(metadata.credential_configurations_supported.ClrCredential_ldp_vc).toMatchObject({
      format: 'ldp_vc',
      credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
      credential_definition: { type: ['VerifiableCredential', 'ClrCredential'] },
    });
    const server = (await getJson(`${base}/.well-known/oauth-authorization-server`)).body;
    expect(server).toMatchObject({ issuer: base, token_endpoint: `${base}/oid4vci/token`, grant_types_supported: [PRE_AUTH] });
  });

  it('Sphereon’s client resolves the offer, takes the token with the PIN, proves possession with a fresh did:key and receives both credentials', async () => {
    const made = await offer(acme, certificate.uuid, { tx_code: true });
    expect(made).toMatchObject({ tx_code_required: true, claims: 0, offer_url: expect.stringMatching(/^openid-credential-offer:\/\/\?credential_offer_uri=/) });
    expect(made.tx_code).toMatch(/^\d{6}$/);
    const holder = await walletKey();
    const client = await OpenID4VCIClientV1_0_15.fromURI({ uri: made.offer_url, kid: holder.kid, alg: 'EdDSA', retrieveServerMetadata: true });
    await client.acquireAccessToken({ pin: made.tx_code });
    const signCallback = async (jwt: { header: object; payload: object }) => holder.sign(jwt.header, jwt.payload);
    const received: Record<string, any>[] = [];
    for (const configuration of ['OpenBadgeCredential_ldp_vc', 'ClrCredential_ldp_vc']) {
      // A c_nonce is single use: the wallet asks the nonce endpoint again before each request.
      (client as any)._state.cachedCNonce = undefined;
      const response = await client.acquireCredentials({
        credentialConfigurationId: configuration,
        proofCallbacks: { signCallback },
        format: 'ldp_vc',
        kid: holder.kid,
        alg: 'EdDSA',
      });
      received.push((response as any).credentials[0].credential);
    }
    const [openBadge, clr] = received as [Record<string, any>, Record<string, any>];
    expect(openBadge.type).toEqual(['VerifiableCredential', 'OpenBadgeCredential']);
    expect(clr.type).toEqual(['VerifiableCredential', 'ClrCredential']);
    const published = (await acme.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
    for (const credential of received) {
      expect(credential.credentialSubject.id).toBe(holder.did);
      expect(credential.credentialStatus).toEqual(published.credentialStatus);
      expect((await referenceVerify(credential)).verified).toBe(true);
    }
    expect(achievementCredentialSchemaErrors(openBadge)).toEqual([]);
    expect(clrCredentialSchemaErrors(clr)).toEqual([]);

    const offers = (await acme.rest('GET', `/certificates/${certificate.uuid}/offers`)).body.data;
    expect(offers[0]).toMatchObject({ uuid: made.uuid, claims: 2, redeemed_at: expect.any(String), tx_code: null, credential_offer_uri: null });

    // Revoking the certificate reaches the wallet's copies through the shared status list entry.
    const { certificate: revocable } = await issuedCertificate(acme, 'revocable@example.org');
    const revocableOffer = await offer(acme, revocable.uuid);
    const access = (await token(await codeOf(revocableOffer.offer_url))).body.access_token;
    const jwt = await holder.sign(proofHeader(holder.kid), { aud: base, iat: now(), nonce: await nonce() });
    const copy = (await credentialRequest(access, jwt)).body.credentials[0].credential;
    expect((await referenceVerify(copy)).verified).toBe(true);
    expect(await referenceRevoked(copy)).toBe(false);
    expect((await acme.rest('POST', `/certificates/${revocable.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);
    expect(await referenceRevoked(copy)).toBe(true);
  });

  it('answers each wrong step with its OAuth error', async () => {
    const holder = await walletKey();
    const proof = async (claims: Record<string, unknown> = {}) =>
      holder.sign(proofHeader(holder.kid), { aud: base, iat: now(), nonce: await nonce(), ...claims });

    // Wrong and missing PIN, then replay of a redeemed code.
    const pinned = await offer(acme, certificate.uuid, { tx_code: true });
    const pinnedCode = await codeOf(pinned.offer_url);
    expect(await token(pinnedCode)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await token(pinnedCode, pinned.tx_code === '000000' ? '111111' : '000000')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await token(pinnedCode, pinned.tx_code)).status).toBe(200);
    expect(await token(pinnedCode, pinned.tx_code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(
      (
        await getJson(
          pinned.offer_url
            .replace(/^.*credential_offer_uri=/, '')
            .replace(/%2F/g, '/')
            .replace(/%3A/g, ':'),
        )
      ).status,
    ).toBe(404);

    // An expired offer, a revoked one, another grant type.
    const expiring = await offer(acme, certificate.uuid);
    const expiringCode = await codeOf(expiring.offer_url);
    await service.orm.em.fork().execute(`update credential_offers set expires_at = now() - interval '1 second' where uuid = ?`, [expiring.uuid]);
    expect(await token(expiringCode)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('expired') } });
    const revoked = await offer(acme, certificate.uuid);
    const revokedCode = await codeOf(revoked.offer_url);
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/offers/${revoked.uuid}/revoke`)).body.data.revoked_at).toEqual(expect.any(String));
    expect(await token(revokedCode)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await post('/oid4vci/token', form({ grant_type: 'client_credentials' }))).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });

    // The credential endpoint: token, nonce, audience, freshness, configuration.
    const access = (await token(await codeOf((await offer(acme, certificate.uuid)).offer_url))).body.access_token;
    expect(await credentialRequest('not-a-token', await proof())).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(await credentialRequest(access, await proof({ nonce: 'made-up' }))).toMatchObject({ status: 400, body: { error: 'invalid_nonce' } });
    expect(await credentialRequest(access, await proof({ aud: 'https://another-issuer.example' }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_proof' },
    });
    expect(await credentialRequest(access, await proof({ iat: now() - 3600 }))).toMatchObject({ status: 400, body: { error: 'invalid_proof' } });
    const stranger = await walletKey();
    const forged = await stranger.sign(proofHeader(holder.kid), { aud: base, iat: now(), nonce: await nonce() });
    expect(await credentialRequest(access, forged)).toMatchObject({ status: 400, body: { error: 'invalid_proof' } });
    expect(await credentialRequest(access, await proof(), 'DiplomaCredential')).toMatchObject({
      status: 400,
      body: { error: 'unknown_credential_configuration' },
    });
    const reused = await proof();
    expect((await credentialRequest(access, reused)).status).toBe(200);
    expect(await credentialRequest(access, reused)).toMatchObject({ status: 400, body: { error: 'invalid_nonce' } });
  });

  it('lets exactly one of two concurrent redemptions of a code, and of a nonce, win', async () => {
    const code = await codeOf((await offer(acme, certificate.uuid)).offer_url);
    const redemptions = await Promise.all([token(code), token(code)]);
    expect(redemptions.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const access = redemptions.find((answer) => answer.status === 200)!.body.access_token;
    const holder = await walletKey();
    const jwt = await holder.sign(proofHeader(holder.kid), { aud: base, iat: now(), nonce: await nonce() });
    const claims = await Promise.all([credentialRequest(access, jwt), credentialRequest(access, jwt)]);
    expect(claims.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(claims.find((answer) => answer.status === 400)!.body.error).toBe('invalid_nonce');
  });

  it('makes offers through GraphQL, only for the tenant’s valid certificates', async () => {
    const made = await acme.graphql(
      'mutation($uuid: ID!) { createCredentialOffer(certificateUuid: $uuid, input: { expiresInSeconds: 120 }) { uuid offerUrl txCodeRequired expiresAt } }',
      {
        uuid: certificate.uuid,
      },
    );
    expect(made.body.data.createCredentialOffer).toMatchObject({ txCodeRequired: false, offerUrl: expect.stringContaining('openid-credential-offer://') });
    expect((await globex.rest('POST', `/certificates/${certificate.uuid}/offers`, {})).status).toBe(404);
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/offers`, { expires_in_seconds: 5 })).status).toBe(422);
  });
});

describe('where students meet the offer', () => {
  it('the issuance e-mail carries the offer as a link and a QR code zbarimg reads, and a wallet redeems it', async () => {
    const email = 'qr.reader@example.org';
    const { certificate } = await issuedCertificate(acme, email);
    await until(() => smtp.to(email).length > 0, 'the issuance e-mail');
    const raw = smtp.to(email)[0]!.raw;
    const link = /openid-credential-offer:\/\/\?credential_offer_uri=[A-Za-z0-9%._-]+/.exec(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0]; // quoted-printable
    expect(link).toBeDefined();
    // The QR code travels as an inline PNG part (cid:), base64-encoded.
    const png = /Content-Type: image\/png[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw)?.[1];
    expect(png).toBeDefined();
    const file = join(mkdtempSync(join(tmpdir(), 'wallet-qr-')), 'offer.png');
    writeFileSync(file, Buffer.from(png!.replace(/\s/g, ''), 'base64'));
    const decoded = spawnSync('zbarimg', ['--quiet', '--raw', file], { encoding: 'utf8' }).stdout.trim();
    expect(decoded).toBe(link);
    // The e-mail's link to the verification page carries the code: that page shows the offer (QR and link), the bare public URL does not.
    const pageUrl = new RegExp(`${certificate.public_verification_url.replace(/[.?*+^$()|[\]\\]/g, '\\$&')}\\?offer=[A-Za-z0-9_-]+`).exec(
      raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
    )?.[0];
    expect(pageUrl).toBeDefined();
    const page = await (await fetch(pageUrl!, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(link);
    expect(page).toContain('<svg');
    expect(page).toContain(certificate.clr_url);
    expect(await (await fetch(certificate.public_verification_url, { headers: { accept: 'text/html' } })).text()).not.toContain('openid-credential-offer');
    const offers = (await acme.rest('GET', `/certificates/${certificate.uuid}/offers`)).body.data;
    expect(offers).toHaveLength(1);
    expect(new Date(offers[0].expires_at).getTime() - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);
    expect((await token(await codeOf(decoded))).status).toBe(200);
  });
});

/** The decoded text of a raw e-mail: quoted-printable soft breaks and escapes undone. */
const decodedMail = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('a PIN in the e-mail when the institution asks for it', () => {
  it('the e-mail’s offer asks for a PIN the e-mail prints apart; a wrong PIN is invalid_grant, Sphereon’s client claims with the right one', async () => {
    const email = 'pin.holder@example.org';
    const { certificate, institution } = await issuedCertificate(acme, email, { is_wallet_pin_required: true });
    expect(institution.is_wallet_pin_required).toBe(true);
    await until(() => smtp.to(email).length > 0, 'the issuance e-mail');
    const mail = decodedMail(smtp.to(email)[0]!.raw);
    const link = /openid-credential-offer:\/\/\?credential_offer_uri=[A-Za-z0-9%._-]+/.exec(mail)![0];
    const pins = [...mail.matchAll(/PIN: (\d{6})\./g)].map((match) => match[1]);
    expect(pins.length).toBeGreaterThanOrEqual(2); // the text part and the HTML part
    expect(new Set(pins).size).toBe(1);
    const pin = pins[0]!;
    // Apart from the offer: neither the deep link nor the verification page it leads to carries it.
    expect(link).not.toContain(pin);
    const pageUrl = new RegExp(`${certificate.public_verification_url.replace(/[.?*+^$()|[\]\\]/g, '\\$&')}\\?offer=[A-Za-z0-9_-]+`).exec(mail)![0];
    expect(await (await fetch(pageUrl, { headers: { accept: 'text/html' } })).text()).not.toContain(`PIN: ${pin}`);
    const offerDocument = (await getJson(new URL(link).searchParams.get('credential_offer_uri')!)).body;
    expect(offerDocument.grants[PRE_AUTH].tx_code).toMatchObject({ input_mode: 'numeric', length: 6 });
    expect((await acme.rest('GET', `/certificates/${certificate.uuid}/offers`)).body.data[0].tx_code_required).toBe(true);

    const code = offerDocument.grants[PRE_AUTH]['pre-authorized_code'];
    expect(await token(code)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await token(code, pin === '000000' ? '111111' : '000000')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const holder = await walletKey();
    const client = await OpenID4VCIClientV1_0_15.fromURI({ uri: link, kid: holder.kid, alg: 'EdDSA', retrieveServerMetadata: true });
    await client.acquireAccessToken({ pin });
    const response = await client.acquireCredentials({
      credentialConfigurationId: 'ClrCredential_ldp_vc',
      proofCallbacks: { signCallback: async (jwt: { header: object; payload: object }) => holder.sign(jwt.header, jwt.payload) },
      format: 'ldp_vc',
      kid: holder.kid,
      alg: 'EdDSA',
    });
    const clr = (response as any).credentials[0].credential;
    expect(clr.credentialSubject.id).toBe(holder.did);
    expect((await referenceVerify(clr)).verified).toBe(true);
    expect(clrCredentialSchemaErrors(clr)).toEqual([]);
    // The claim is counted in the certificate's engagement figures.
    const engagement = await acme.rest('GET', `/certificates/${certificate.uuid}/engagement`);
    expect(engagement.body.data.totals.wallet_claims).toBe(1);
    // Revoking the certificate shows in the status of the copy Sphereon's client received.
    expect(await referenceRevoked(clr)).toBe(false);
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);
    expect(await referenceRevoked(clr)).toBe(true);
  });
});

describe('clean-up of the wallet exchange', () => {
  it('deletes expired nonces and access tokens, and offers dead past the grace, on the job queue; live rows and every claim stay', async () => {
    const sql = (query: string, params: unknown[] = []) => service.orm.em.getConnection().execute(query, params);
    const { certificate } = await issuedCertificate(acme, 'sweep@example.org');
    const hashes = { liveNonce: 'n'.repeat(64), oldNonce: 'o'.repeat(64), liveToken: 't'.repeat(64), oldToken: 'u'.repeat(64) };
    await sql(`insert into wallet_nonces (nonce_hash, expires_at) values (?, now() + interval '5 minutes'), (?, now() - interval '1 second')`, [
      hashes.liveNonce,
      hashes.oldNonce,
    ]);
    const live = await offer(acme, certificate.uuid);
    const recentlyExpired = await offer(acme, certificate.uuid);
    const longExpired = await offer(acme, certificate.uuid);
    const longRedeemed = await offer(acme, certificate.uuid);
    const longRevoked = await offer(acme, certificate.uuid);
    // Rows that name an offer before it is made dead: a sweep in between would have removed it first.
    await sql(
      `insert into wallet_access_tokens (token_hash, offer_uuid, expires_at) values (?, ?, now() + interval '5 minutes'), (?, ?, now() - interval '1 second')`,
      [hashes.liveToken, live.uuid, hashes.oldToken, longRedeemed.uuid],
    );
    await sql(
      `insert into credential_claims (uuid, offer_uuid, certificate_uuid, tenant_uuid, configuration_id, holder, claimed_at)
        select gen_random_uuid(), uuid, certificate_uuid, tenant_uuid, 'OpenBadgeCredential_ldp_vc', 'did:key:z6Mkexample', now() - interval '31 days' from credential_offers where uuid = ?`,
      [longRedeemed.uuid],
    );
    await sql(`update credential_offers set expires_at = now() - interval '1 hour' where uuid = ?`, [recentlyExpired.uuid]);
    await sql(`update credential_offers set expires_at = now() - interval '31 days' where uuid = ?`, [longExpired.uuid]);
    await sql(`update credential_offers set redeemed_at = now() - interval '31 days' where uuid = ?`, [longRedeemed.uuid]);
    await sql(`update credential_offers set revoked_at = now() - interval '31 days' where uuid = ?`, [longRevoked.uuid]);

    // (The issuance e-mail's own offer is live too: only the five made here are looked at.)
    const made = [live, recentlyExpired, longExpired, longRedeemed, longRevoked].map((each) => each.uuid);
    const offersLeft = async () =>
      ((await sql('select uuid from credential_offers where uuid in (?, ?, ?, ?, ?)', made)) as { uuid: string }[]).map((row) => row.uuid).sort();
    // The sweep may pass between the inserts above: wait for a pass after all of them.
    const gone = async () =>
      (await sql('select (select count(*) from wallet_nonces where nonce_hash = ?) + (select count(*) from wallet_access_tokens where token_hash = ?) as n', [
        hashes.oldNonce,
        hashes.oldToken,
      ])) as { n: string }[];
    await until(async () => (await offersLeft()).length === 2 && Number((await gone())[0]!.n) === 0, 'the sweep');
    expect(await offersLeft()).toEqual([live.uuid, recentlyExpired.uuid].sort());
    const nonces = (await sql('select nonce_hash from wallet_nonces where nonce_hash in (?, ?)', [hashes.liveNonce, hashes.oldNonce])) as unknown[];
    expect(nonces).toEqual([{ nonce_hash: hashes.liveNonce }]);
    const tokens = (await sql('select token_hash from wallet_access_tokens where token_hash in (?, ?)', [hashes.liveToken, hashes.oldToken])) as unknown[];
    expect(tokens).toEqual([{ token_hash: hashes.liveToken }]);
    expect(await sql('select count(*)::int as n from credential_claims where offer_uuid = ?', [longRedeemed.uuid])).toEqual([{ n: 1 }]);
  });
});
