import { spawn, type ChildProcess } from 'node:child_process';
import { jest } from '@jest/globals';
import { JsonRpcProvider, Transaction, Wallet } from 'ethers';
import { startEmbeddedChain, type EmbeddedChain } from '../src/anchoring/embedded-chain.js';
import { openOrm } from '../src/db/orm.js';
import { anchoringChain, blockcertsVerify } from './support/blockcerts.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { factories, type Factories } from './support/factories.js';
import { ApiClient, PUBLIC_BASE_URL, requestToken, signIn, startTestService, type TestService } from './support/service.js';
import { freePort, until } from './support/wait.js';

jest.setTimeout(120_000);

/**
 * The chain faults docs/anchoring.md promises to survive, each against a real local chain the test
 * starts and controls (mining switched off to hold a transaction between sending and confirming).
 * The services anchor every second: the test waits on states, never on time.
 */

type BatchRow = { uuid: string; tx_hash: string; raw_transaction: string; nonce: string; signings: number; confirmed_at: Date | null };

const batchesOf = (service: { orm: TestService['orm'] }) =>
  service.orm.em.fork().execute<BatchRow[]>('select uuid, tx_hash, raw_transaction, nonce, signings, confirmed_at from anchor_batches order by created_at');
const txHashOf = async (api: ApiClient, uuid: string) => (await api.rest('GET', `/certificates/${uuid}`)).body.data.blockchain_tx_hash as string | null;
const nonceOf = (chain: EmbeddedChain, address: string, tag = 'latest') => chain.request('eth_getTransactionCount', [address, tag]).then(Number);
const inMempool = async (chain: EmbeddedChain, txHash: string) => {
  const pending = (await chain.request('eth_getBlockByNumber', ['pending', false])) as { transactions: string[] };
  return pending.transactions.includes(txHash);
};
/** The batch signed and its transaction waiting in the chain's mempool (mining is off). */
const untilSent = async (service: { orm: TestService['orm'] }, chain: EmbeddedChain, count = 1) => {
  let sent: BatchRow | undefined;
  await until(async () => {
    sent = (await batchesOf(service))[count - 1];
    return sent !== undefined && (await inMempool(chain, sent.tx_hash));
  }, 'the anchoring transaction to be sent');
  return sent!;
};

describe('a server process killed between sending its anchoring transaction and confirming it', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('leaves the stored batch to the next process, which records the one transaction exactly once', async () => {
    const { chain, wallet, env: anchorEnv } = await anchoringChain();
    const database: TestDatabase = await createTestDatabase();
    const port = await freePort();
    const seed = { SEED_TENANT: 'acme', SEED_CLIENT_ID: 'anchor-client', SEED_CLIENT_SECRET: 'anchor-secret-0123456789abcdef' };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...anchorEnv,
      ...seed,
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL,
      ANCHOR_INTERVAL_SECONDS: '1',
    };
    // Both certificates exist before any process anchors, so the child's first pass sends them in one batch.
    const issuer = await startTestService(seed, database);
    let certificates: Awaited<ReturnType<Factories['certificate']>>[];
    let token: string;
    try {
      token = (
        (await (await requestToken(issuer.url, { clientId: seed.SEED_CLIENT_ID, clientSecret: seed.SEED_CLIENT_SECRET })).json()) as { access_token: string }
      ).access_token;
      const make = factories(new ApiClient(issuer.url, token, 'acme'));
      const institution = await make.institution();
      certificates = [await make.certificate({ institution_uuid: institution.uuid }), await make.certificate({ institution_uuid: institution.uuid })];
    } finally {
      await issuer.stop();
    }

    await chain.request('evm_setAutomine', [false]);
    child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    const baseUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, 'the child to be ready').catch((error) => {
      throw new Error(`${error.message}; its output:\n${output}`);
    });

    let successor: TestService | undefined;
    try {
      const probe = { orm: await openOrm(database.url, { poolMax: 2 }) };
      try {
        const sent = await untilSent(probe, chain);
        child.kill('SIGKILL');
        await exited;
        // Mined while no process is alive: nobody saw its confirmation.
        await chain.request('evm_mine');
        expect(await nonceOf(chain, wallet.address)).toBe(1);
        expect((await batchesOf(probe))[0].confirmed_at).toBeNull();

        successor = await startTestService({ ...anchorEnv, ANCHOR_INTERVAL_SECONDS: '1' }, database);
        const api = new ApiClient(successor.url, token, 'acme');
        await until(async () => (await batchesOf(successor!))[0].confirmed_at !== null, 'the successor to record the batch');
        // Another run finds nothing left to record.
        expect(await successor.runtime.anchoring!.runOnce()).toBe(0);

        expect(await nonceOf(chain, wallet.address)).toBe(1);
        const batches = await batchesOf(successor);
        expect(batches).toHaveLength(1);
        expect(batches[0]).toMatchObject({ tx_hash: sent.tx_hash, signings: 1 });
        for (const certificate of certificates) expect(await txHashOf(api, certificate.uuid)).toBe(sent.tx_hash);
        const events = await successor.orm.em
          .fork()
          .execute<{ subject_uuid: string }[]>(`select subject_uuid from webhook_messages where event_type = 'certificate.anchored' order by subject_uuid`);
        expect(events.map((event) => event.subject_uuid)).toEqual(certificates.map((certificate) => certificate.uuid).sort());
        const credential = await (await fetch(`${successor.url}/blockcerts/${certificates[0].uuid}`)).json();
        expect(await blockcertsVerify(credential, chain.url, successor.url)).toMatchObject({ status: 'success' });
      } finally {
        await probe.orm.close();
      }
    } finally {
      await successor?.stop();
      await chain.close();
      await database.drop();
    }
  });
});

describe('a transaction that never gets mined as sent', () => {
  let chain: EmbeddedChain;
  let wallet: Wallet;
  let service: TestService;
  let api: ApiClient;

  beforeEach(async () => {
    const started = await anchoringChain();
    ({ chain, wallet } = started);
    service = await startTestService({ ...started.env, ANCHOR_INTERVAL_SECONDS: '1' });
    api = await signIn(service, 'faults');
    await chain.request('evm_setAutomine', [false]);
  });

  afterEach(async () => {
    await service?.stop();
    await chain?.close();
  });

  it('dropped from the mempool: the same signed transaction is sent again and anchors the batch', async () => {
    const certificate = await factories(api).certificate();
    const sent = await untilSent(service, chain);

    // true: it was in the mempool and is gone (the service may send it again at any moment after this).
    expect(await chain.request('hardhat_dropTransaction', [sent.tx_hash])).toBe(true);
    // From now on every transaction the chain receives is mined at once: only a re-sent one can anchor.
    await chain.request('evm_setAutomine', [true]);

    await until(async () => (await txHashOf(api, certificate.uuid)) !== null, 'the certificate to be anchored');
    expect(await txHashOf(api, certificate.uuid)).toBe(sent.tx_hash);
    expect(await batchesOf(service)).toMatchObject([{ tx_hash: sent.tx_hash, signings: 1 }]);
    expect(await nonceOf(chain, wallet.address)).toBe(1);
  });

  it('its nonce taken by another transaction of the same key: the batch is signed again with the next nonce, one anchoring transaction', async () => {
    const certificate = await factories(api).certificate();
    const sent = await untilSent(service, chain);

    // Another transaction from the anchoring key with the same nonce and a higher fee replaces it and is mined.
    const original = Transaction.from(sent.raw_transaction);
    const provider = new JsonRpcProvider(chain.url, undefined, { staticNetwork: true });
    const other = await wallet.connect(provider).sendTransaction({
      to: wallet.address,
      value: 0n,
      nonce: original.nonce,
      maxFeePerGas: original.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: original.maxPriorityFeePerGas! * 2n,
    });
    provider.destroy();
    await chain.request('evm_mine');
    expect(((await chain.request('eth_getTransactionReceipt', [other.hash])) as { status: string }).status).toBe('0x1');
    await chain.request('evm_setAutomine', [true]);

    await until(async () => (await txHashOf(api, certificate.uuid)) !== null, 'the certificate to be anchored');
    const [batch] = await batchesOf(service);
    expect(batch.signings).toBe(2);
    expect(batch.tx_hash).not.toBe(sent.tx_hash);
    expect(Number(batch.nonce)).toBe(original.nonce + 1);
    expect(await txHashOf(api, certificate.uuid)).toBe(batch.tx_hash);
    expect(await chain.request('eth_getTransactionReceipt', [sent.tx_hash])).toBeNull();
    expect(await nonceOf(chain, wallet.address)).toBe(2);
    const credential = await (await fetch(`${service.url}/blockcerts/${certificate.uuid}`)).json();
    expect(await blockcertsVerify(credential, chain.url, service.url)).toMatchObject({ status: 'success' });
  });

  it('the chain reset while a batch waits (its nonce now beyond the chain’s): the batch is signed again and anchored on the new chain', async () => {
    await chain.request('evm_setAutomine', [true]);
    const first = await factories(api).certificate();
    await until(async () => (await txHashOf(api, first.uuid)) !== null, 'the first certificate to be anchored');
    await chain.request('evm_setAutomine', [false]);
    const second = await factories(api).certificate();
    const sent = await untilSent(service, chain, 2);
    expect(Number(sent.nonce)).toBe(1);

    // The node restarts on a fresh chain at the same URL: nonce 0 again, the waiting transaction gone.
    const port = Number(new URL(chain.url).port);
    await chain.close();
    chain = await startEmbeddedChain([wallet.address], port);

    await until(async () => (await txHashOf(api, second.uuid)) !== null, 'the second certificate to be anchored on the new chain');
    const batch = (await batchesOf(service))[1];
    expect(batch).toMatchObject({ signings: 2, nonce: '0' });
    expect(await nonceOf(chain, wallet.address)).toBe(1);
    const mined = (await chain.request('eth_getTransactionByHash', [batch.tx_hash])) as { blockNumber: string | null };
    expect(mined.blockNumber).not.toBeNull();
  });
});
