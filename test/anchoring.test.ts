import { jest } from '@jest/globals';
import type { EmbeddedChain } from '../src/anchoring/embedded-chain.js';
import { anchoringChain, blockcertsVerify } from './support/blockcerts.js';
import { factories } from './support/factories.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';

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
    const institution = await make.institution({ name: 'Universidade Aberta' });
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
  });
});
