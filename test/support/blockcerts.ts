import { type ChildProcess, fork } from 'node:child_process';
import { Wallet } from 'ethers';
import { startEmbeddedChain, type EmbeddedChain } from '../../src/anchoring/embedded-chain.js';
import { PUBLIC_BASE_URL } from './service.js';

export interface VerifierResult {
  status: string;
  message: string | null;
  steps: Record<string, string>;
}

/**
 * One verifier process for the test file (test/support/blockcerts-verifier.mjs), started at its first
 * verification and ended after the file's last test. Its IPC channel is held open only while an answer
 * is awaited, so an idle verifier never keeps Jest waiting.
 */
let verifier: { child: ChildProcess; pending: Map<number, (result: VerifierResult) => void> } | undefined;
let nextId = 0;

function startVerifier(): NonNullable<typeof verifier> {
  const child = fork('test/support/blockcerts-verifier.mjs', [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
  const pending = new Map<number, (result: VerifierResult) => void>();
  const started = { child, pending };
  child.on('message', ({ id, result }: { id: number; result: VerifierResult }) => {
    pending.get(id)?.(result);
    pending.delete(id);
    if (pending.size === 0) child.channel?.unref();
  });
  child.on('exit', (code, signal) => {
    if (verifier === started) verifier = undefined;
    for (const answer of pending.values()) answer({ status: 'error', message: `the verifier process ended (${signal ?? code})`, steps: {} });
    pending.clear();
  });
  child.unref();
  return started;
}

if (typeof afterAll === 'function') {
  afterAll(() => {
    verifier?.child.kill();
    verifier = undefined;
  });
}

/** The Blockcerts reference verifier on one credential (its own Certificate, fetching everything again). */
export async function blockcertsVerify(credential: object, rpcUrl: string, serviceUrl: string): Promise<VerifierResult> {
  verifier ??= startVerifier();
  const { child, pending } = verifier;
  const id = nextId++;
  const answered = new Promise<VerifierResult>((resolve) => pending.set(id, resolve));
  child.channel?.ref();
  child.send({ id, credential, rpcUrl, routes: { [new URL(PUBLIC_BASE_URL).host]: serviceUrl } });
  return answered;
}

/** A local chain with a fresh funded key, and the service variables that anchor on it (labelled sepolia: verifiers know only the Blockcerts names). */
export async function anchoringChain(): Promise<{ chain: EmbeddedChain; wallet: Wallet; env: Record<string, string> }> {
  const wallet = Wallet.createRandom();
  const chain = await startEmbeddedChain([wallet.address]);
  const env = {
    ANCHOR_RPC_URL: chain.url,
    ANCHOR_NETWORK: 'sepolia',
    ANCHOR_PRIVATE_KEY: wallet.privateKey,
    ANCHOR_INTERVAL_SECONDS: '3600',
    ANCHOR_TX_URL_TEMPLATE: 'https://sepolia.etherscan.io/tx/{hash}',
  };
  return { chain, wallet: wallet as unknown as Wallet, env };
}
