import { jest } from '@jest/globals';
import { JsonRpcProvider, Wallet } from 'ethers';
import { decodeMerkleProof, encodeMerkleProof, ethereumAnchor, type MerkleProofValue } from '../src/anchoring/merkle-proof.js';
import type { EmbeddedChain } from '../src/anchoring/embedded-chain.js';
import { anchoringChain, blockcertsVerify } from './support/blockcerts.js';
import { factories } from './support/factories.js';
import { upload, uploadPdf } from './support/files.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(120_000);

let chain: EmbeddedChain;
let address: string;
let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  const started = await anchoringChain();
  chain = started.chain;
  address = started.wallet.address.toLowerCase();
  service = await startTestService(started.env);
  api = await signIn(service, 'anchoring');
  // Verifiers want the anchoring transaction strictly after the key's registration second.
  await new Promise((resolve) => setTimeout(resolve, 2100));
});

afterAll(async () => {
  await service?.stop();
  await chain?.close();
});

const anchorNow = () => service.runtime.anchoring!.runOnce();
const credentialOf = async (uuid: string) => (await fetch(`${service.url}/blockcerts/${uuid}`)).json() as Promise<Record<string, any>>;
const transactionsSent = async () => Number(await chain.request('eth_getTransactionCount', [address, 'latest']));

describe('batched anchoring', () => {
  it('anchors a batch of several certificates in one transaction, each verified by the Blockcerts reference verifier', async () => {
    const make = factories(api);
    const institution = await make.institution({ name: 'Universidade Aberta', email: 'registrar@aberta.example' });
    const certificates = [];
    for (let index = 0; index < 3; index++) certificates.push(await make.certificate({ institution_uuid: institution.uuid }));
    const before = await transactionsSent();

    expect(await anchorNow()).toBe(3);

    expect(await transactionsSent()).toBe(before + 1);
    const hashes = new Set<string>();
    for (const certificate of certificates) {
      const read = (await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data;
      expect(read.blockchain_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(read.blockchain_tx_url).toBe(`https://sepolia.etherscan.io/tx/${read.blockchain_tx_hash}`);
      hashes.add(read.blockchain_tx_hash);
      const credential = await credentialOf(certificate.uuid);
      expect(credential.type).toEqual(['VerifiableCredential', 'BlockcertsCredential']);
      const result = await blockcertsVerify(credential, chain.url, service.url);
      expect(result).toMatchObject({ status: 'success' });
    }
    expect(hashes.size).toBe(1);
    const profile = await (await fetch(`${service.url}/blockcerts/issuers/${institution.uuid}`)).json();
    expect(profile).toMatchObject({ name: 'Universidade Aberta', email: 'registrar@aberta.example' });
  });
});

describe('what the reference verifier refuses', () => {
  let credential: Record<string, any>;
  let proof: MerkleProofValue;

  beforeAll(async () => {
    const make = factories(api);
    const institution = await make.institution();
    const first = await make.certificate({ institution_uuid: institution.uuid });
    await make.certificate({ institution_uuid: institution.uuid });
    await anchorNow();
    credential = await credentialOf(first.uuid);
    proof = decodeMerkleProof(credential.proof.proofValue)!;
  });

  const withProof = (changes: Partial<MerkleProofValue>) => ({
    ...credential,
    proof: { ...credential.proof, proofValue: encodeMerkleProof({ ...proof, ...changes }) },
  });
  const sendFrom = async (wallet: Wallet, data: string) => {
    await chain.request('hardhat_setBalance', [wallet.address, '0xde0b6b3a7640000']);
    const provider = new JsonRpcProvider(chain.url, undefined, { staticNetwork: true });
    const sent = await wallet.connect(provider).sendTransaction({ to: wallet.address, value: 0n, data: `0x${data}` });
    await sent.wait(1);
    provider.destroy();
    return sent.hash;
  };

  it('one changed character of the credential', async () => {
    const changed = { ...credential, credentialSubject: { ...credential.credentialSubject, name: `${credential.credentialSubject.name}.` } };
    const result = await blockcertsVerify(changed, chain.url, service.url);
    expect(result.status).toBe('failure');
    expect(result.steps.compareHashes).toBe('failure');
  });

  it('a wrong Merkle path', async () => {
    const [step] = proof.path;
    const flipped = 'left' in step ? { left: 'ff'.repeat(32) } : { right: 'ff'.repeat(32) };
    const result = await blockcertsVerify(withProof({ path: [flipped, ...proof.path.slice(1)] }), chain.url, service.url);
    expect(result.status).toBe('failure');
    expect(result.steps.checkReceipt).toBe('failure');
  });

  it('an anchor pointing at another transaction', async () => {
    const other = await sendFrom(Wallet.createRandom() as unknown as Wallet, 'ab'.repeat(32));
    const result = await blockcertsVerify(withProof({ anchors: [ethereumAnchor('sepolia', other)] }), chain.url, service.url);
    expect(result.status).toBe('failure');
    expect(result.steps.checkMerkleRoot).toBe('failure');
  });

  it('the same root sent by another address', async () => {
    const copy = await sendFrom(Wallet.createRandom() as unknown as Wallet, proof.merkleRoot);
    const result = await blockcertsVerify(withProof({ anchors: [ethereumAnchor('sepolia', copy)] }), chain.url, service.url);
    expect(result.status).toBe('failure');
    expect(result.steps.checkAuthenticity).toBe('failure');
  });
});

describe('revocation and withdrawal after anchoring', () => {
  it('a revoked certificate is listed in its revocation list and no longer verifies; a deleted one answers 410 and is listed as withdrawn', async () => {
    const make = factories(api);
    const institution = await make.institution();
    const revoked = await make.certificate({ institution_uuid: institution.uuid });
    const deleted = await make.certificate({ institution_uuid: institution.uuid });
    await anchorNow();
    const revokedCredential = await credentialOf(revoked.uuid);
    const deletedCredential = await credentialOf(deleted.uuid);
    expect((await blockcertsVerify(revokedCredential, chain.url, service.url)).status).toBe('success');

    expect((await api.rest('POST', `/certificates/${revoked.uuid}/revoke`, { reason: 'Issued by mistake' })).status).toBe(200);
    expect((await api.rest('DELETE', `/certificates/${deleted.uuid}`)).status).toBe(204);

    const result = await blockcertsVerify(revokedCredential, chain.url, service.url);
    expect(result).toMatchObject({ status: 'failure', steps: { checkRevokedStatus: 'failure' } });
    expect(result.message).toContain('Issued by mistake');
    expect((await fetch(`${service.url}/blockcerts/${deleted.uuid}`)).status).toBe(410);
    expect((await blockcertsVerify(deletedCredential, chain.url, service.url)).steps.checkRevokedStatus).toBe('failure');
    const list = await (await fetch(`${service.url}/blockcerts/issuers/${institution.uuid}/revocations`)).json();
    expect(list.revokedAssertions).toEqual(
      expect.arrayContaining([
        { id: revokedCredential.id, revocationReason: 'Issued by mistake' },
        { id: deletedCredential.id, revocationReason: 'Withdrawn by the issuer.' },
      ]),
    );
  });

  it('a certificate revoked before its batch is made is never anchored', async () => {
    const certificate = await factories(api).certificate();
    await api.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Too fast' });
    await anchorNow();
    expect((await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data.blockchain_tx_hash).toBeNull();
    expect((await fetch(`${service.url}/blockcerts/${certificate.uuid}`)).status).toBe(404);
  });
});

describe('the API', () => {
  it('refuses blockchain fields from clients with a 422 naming them (REST and GraphQL)', async () => {
    const make = factories(api);
    const institution = await make.institution();
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student();
    const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, finish: false };
    const rest = await api.rest('POST', '/certificates', {
      ...body,
      file_uuid: (await uploadPdf(api)).uuid,
      blockchain_tx_hash: '0xabc',
      blockchain_tx_url: 'https://example.org/tx/abc',
    });
    expect(rest.status).toBe(422);
    expect(Object.keys(rest.body.errors).sort()).toEqual(['blockchain_tx_hash', 'blockchain_tx_url']);
    expect(rest.body.errors.blockchain_tx_hash[0]).toContain('set by the service when the certificate is anchored');

    const draft = (await api.rest('POST', '/certificates', { ...body, file_uuid: (await uploadPdf(api)).uuid })).body.data;
    const patched = await api.rest('PATCH', `/certificates/${draft.uuid}`, { blockchain_tx_hash: '0xabc' });
    expect(patched.status).toBe(422);
    const graphql = await api.graphql(`mutation ($uuid: ID!) { updateCertificate(uuid: $uuid, input: { blockchainTxHash: "0xabc" }) { uuid } }`, {
      uuid: draft.uuid,
    });
    expect(graphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('shows the anchoring: blockcerts_url and blockchain fields in REST, Certificate.anchor in GraphQL; unanchored ones are listed by where[blockchain_tx_hash]=null', async () => {
    const certificate = await factories(api).certificate();
    const before = (await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data;
    expect(before).toMatchObject({ blockchain_tx_hash: null, blockchain_tx_url: null, blockcerts_url: null });
    const unanchored = (await api.rest('GET', '/certificates?where[blockchain_tx_hash]=null&per_page=100')).body.data.map((row: { uuid: string }) => row.uuid);
    expect(unanchored).toContain(certificate.uuid);

    await anchorNow();

    const after = (await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data;
    expect(after.blockcerts_url).toBe(`http://credentials.test/blockcerts/${certificate.uuid}`);
    const { body } = await api.graphql(
      `query ($uuid: ID!) { certificate(uuid: $uuid) { anchor { network txHash txUrl blockNumber anchoredAt merkleRoot } } }`,
      {
        uuid: certificate.uuid,
      },
    );
    const anchor = body.data.certificate.anchor;
    expect(anchor).toMatchObject({ network: 'sepolia', txHash: after.blockchain_tx_hash, txUrl: after.blockchain_tx_url });
    expect(anchor.merkleRoot).toMatch(/^[0-9a-f]{64}$/);
    const transaction = (await chain.request('eth_getTransactionByHash', [anchor.txHash])) as { input: string; blockNumber: string; from: string };
    expect(transaction.input).toBe(`0x${anchor.merkleRoot}`);
    expect(Number(transaction.blockNumber)).toBe(anchor.blockNumber);
    expect(transaction.from).toBe(address);
    const listed = (await api.rest('GET', '/certificates?where[blockchain_tx_hash]=null&per_page=100')).body.data.map((row: { uuid: string }) => row.uuid);
    expect(listed).not.toContain(certificate.uuid);
  });
});

describe('faults', () => {
  it('while the chain is down issuance goes on, anchoring fails with a metric and retries with backoff, and anchors once the chain is back', async () => {
    const started = await anchoringChain();
    const scheduled = await startTestService({ ...started.env, ANCHOR_INTERVAL_SECONDS: '1' });
    try {
      const client = await signIn(scheduled, 'faults');
      await started.chain.pause();
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const certificate = await factories(client).certificate();
      expect(certificate.status).toBe('issued');
      const failures = async () => {
        const text = await (await fetch(`${scheduled.url}/metrics`)).text();
        return Number(/credentials_anchor_failures_total\{reason="rpc_unreachable"\} (\d+)/.exec(text)?.[1] ?? 0);
      };
      await until(async () => (await failures()) >= 2, 'two failed anchoring runs');
      expect((await client.rest('GET', `/certificates/${certificate.uuid}`)).body.data.blockchain_tx_hash).toBeNull();

      await started.chain.resume();
      await until(
        async () => (await client.rest('GET', `/certificates/${certificate.uuid}`)).body.data.blockchain_tx_hash !== null,
        'the certificate to be anchored',
      );
      expect(Number(await started.chain.request('eth_getTransactionCount', [started.wallet.address, 'latest']))).toBe(1);
    } finally {
      await scheduled.stop();
      await started.chain.close();
    }
  });
});

describe('verification by this service', () => {
  const page = async (uuid: string, lang = 'en') => (await fetch(`${service.url}/verify/${uuid}?lang=${lang}`)).text();
  const facts = async (uuid: string) => ((await (await fetch(`${service.url}/api/v1/verify/${uuid}`)).json()) as any).data;
  const verifyPdf = async (bytes: ArrayBuffer) =>
    ((await (await fetch(`${service.url}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: bytes })).json()) as any).data;
  const verifyCredential = async (credential: object) =>
    (
      (await (
        await fetch(`${service.url}/api/v1/badges/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(credential),
        })
      ).json()) as any
    ).data;
  const pdfOf = async (certificate: Record<string, any>) => {
    const file = (certificate.files as { type: string; uuid: string }[]).find((entry) => entry.type === 'certificate')!;
    return (await fetch(`${service.url}/api/v1/files/${file.uuid}/download`)).arrayBuffer();
  };
  const badgedCertificate = async () => {
    const make = factories(api);
    const institution = await make.institution({ is_badges_enabled: true, email: 'registrar@badges.example', badge_image_uuid: await badgeImage() });
    return make.certificate({ institution_uuid: institution.uuid });
  };
  const badgeImage = async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/></svg>';
    return (await upload(api, [[Buffer.from(svg), 'badge.svg']])).body.data[0].uuid as string;
  };

  it('the page and the facts say "Anchoring pending", then where it is anchored, with the transaction link (en, pt-BR)', async () => {
    const certificate = await factories(api).certificate();
    expect(await page(certificate.uuid)).toContain('Anchoring pending');
    expect(await page(certificate.uuid, 'pt-BR')).toContain('Ancoragem pendente');
    expect((await facts(certificate.uuid)).anchor).toEqual({ status: 'pending' });

    await anchorNow();

    const anchored = (await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data;
    const transaction = (await chain.request('eth_getTransactionByHash', [anchored.blockchain_tx_hash])) as { blockNumber: string };
    const block = Number(transaction.blockNumber);
    const html = await page(certificate.uuid);
    expect(html).toContain(`Anchored on sepolia in block ${block} at `);
    expect(html).toContain(`href="${anchored.blockchain_tx_url}"`);
    expect(await page(certificate.uuid, 'pt-BR')).toContain(`Ancorado na rede sepolia no bloco ${block} em `);
    expect((await facts(certificate.uuid)).anchor).toMatchObject({
      status: 'anchored',
      network: 'sepolia',
      tx_hash: anchored.blockchain_tx_hash,
      tx_url: anchored.blockchain_tx_url,
      block_number: block,
    });
  });

  it('POST /api/v1/verify and POST /api/v1/badges/verify check the anchor against the chain', async () => {
    const certificate = await badgedCertificate();
    const credential = (await api.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
    const pdf = await pdfOf(certificate);
    expect((await verifyPdf(pdf)).anchor).toMatchObject({ status: 'pending', passed: null });
    expect((await verifyCredential(credential)).checks.anchor).toMatchObject({ status: 'pending', passed: null });

    await anchorNow();
    const txHash = (await api.rest('GET', `/certificates/${certificate.uuid}`)).body.data.blockchain_tx_hash;

    const checked = await verifyPdf(pdf);
    expect(checked.verdict).toBe('authentic');
    expect(checked.anchor).toMatchObject({ status: 'anchored', passed: true, message: null, network: 'sepolia', tx_hash: txHash });
    const badge = await verifyCredential(credential);
    expect(badge.verified).toBe(true);
    expect(badge.checks.anchor).toMatchObject({ status: 'anchored', passed: true, tx_hash: txHash });
  });

  describe('what the anchor check refuses (the stored record altered)', () => {
    let certificate: Record<string, any>;
    let credential: Record<string, unknown>;
    let pdf: ArrayBuffer;
    let record: { path: unknown; credential: Record<string, any> };
    let batch: { uuid: string; tx_hash: string; merkle_root: string };
    const execute = (sql: string, params: unknown[] = []) => service.orm.em.fork().execute<any[]>(sql, params);

    beforeAll(async () => {
      certificate = await badgedCertificate();
      await factories(api).certificate();
      credential = (await api.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
      pdf = await pdfOf(certificate);
      await anchorNow();
      [record] = await execute('select path, credential from certificate_anchors where certificate_uuid = ?', [certificate.uuid]);
      [batch] = await execute(
        'select b.uuid, b.tx_hash, b.merkle_root from anchor_batches b join certificate_anchors a on a.batch_uuid = b.uuid where a.certificate_uuid = ?',
        [certificate.uuid],
      );
    });

    afterEach(async () => {
      await execute('update certificate_anchors set path = ?, credential = ? where certificate_uuid = ?', [
        JSON.stringify(record.path),
        JSON.stringify(record.credential),
        certificate.uuid,
      ]);
      await execute('update anchor_batches set tx_hash = ? where uuid = ?', [batch.tx_hash, batch.uuid]);
    });

    it('a changed credential (its hash no longer leads to the root)', async () => {
      const changed = { ...record.credential, credentialSubject: { ...record.credential.credentialSubject, name: 'Someone Else' } };
      await execute('update certificate_anchors set credential = ? where certificate_uuid = ?', [JSON.stringify(changed), certificate.uuid]);
      expect((await verifyPdf(pdf)).anchor).toMatchObject({ status: 'failed', passed: false, message: expect.stringContaining('Merkle root') });
      const badge = await verifyCredential(credential);
      expect(badge).toMatchObject({ verified: false, checks: { anchor: { status: 'failed', passed: false } } });
    });

    it('a wrong path', async () => {
      await execute('update certificate_anchors set path = ? where certificate_uuid = ?', [JSON.stringify([{ right: 'ff'.repeat(32) }]), certificate.uuid]);
      expect((await verifyPdf(pdf)).anchor).toMatchObject({ status: 'failed', message: expect.stringContaining('Merkle root') });
    });

    it('a credential that does not list the PDF', async () => {
      const subject = { ...record.credential.credentialSubject, signedDocuments: [] };
      await execute('update certificate_anchors set credential = ? where certificate_uuid = ?', [
        JSON.stringify({ ...record.credential, credentialSubject: subject }),
        certificate.uuid,
      ]);
      expect((await verifyPdf(pdf)).anchor).toMatchObject({ status: 'failed', message: "The anchored credential does not list this document's SHA-256." });
    });

    it('the same root sent by another address', async () => {
      const other = Wallet.createRandom() as unknown as Wallet;
      await chain.request('hardhat_setBalance', [other.address, '0xde0b6b3a7640000']);
      const provider = new JsonRpcProvider(chain.url, undefined, { staticNetwork: true });
      const sent = await other.connect(provider).sendTransaction({ to: other.address, value: 0n, data: `0x${batch.merkle_root}` });
      await sent.wait(1);
      provider.destroy();
      await execute('update anchor_batches set tx_hash = ? where uuid = ?', [sent.hash, batch.uuid]);
      expect((await verifyPdf(pdf)).anchor).toMatchObject({
        status: 'failed',
        message: "The transaction was not sent from an address of the issuer's profile.",
      });
    });

    it('a transaction the chain does not have', async () => {
      await execute('update anchor_batches set tx_hash = ? where uuid = ?', [`0x${'ab'.repeat(32)}`, batch.uuid]);
      expect((await verifyPdf(pdf)).anchor).toMatchObject({ status: 'failed', message: 'The anchoring transaction is not in a block of this chain.' });
    });
  });

  it('says "unavailable" (undecided) while the chain cannot be read; the credential stays verified', async () => {
    const certificate = await badgedCertificate();
    const credential = (await api.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
    await anchorNow();
    await chain.pause();
    try {
      const badge = await verifyCredential(credential);
      expect(badge).toMatchObject({ verified: true, checks: { anchor: { status: 'unavailable', passed: null } } });
    } finally {
      await chain.resume();
    }
  });
});
