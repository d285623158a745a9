import { spawn } from 'node:child_process';
import { Wallet } from 'ethers';
import { startEmbeddedChain, type EmbeddedChain } from '../../src/anchoring/embedded-chain.js';
import { PUBLIC_BASE_URL } from './service.js';

export interface VerifierResult {
  status: string;
  message: string | null;
  steps: Record<string, string>;
}

/** The Blockcerts reference verifier on one credential (test/support/blockcerts-verifier.mjs, in a child process). */
export async function blockcertsVerify(credential: object, rpcUrl: string, serviceUrl: string): Promise<VerifierResult> {
  const child = spawn(process.execPath, ['test/support/blockcerts-verifier.mjs'], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ credential, rpcUrl, routes: { [new URL(PUBLIC_BASE_URL).host]: serviceUrl } }));
  let output = '';
  for await (const chunk of child.stdout) output += chunk;
  return JSON.parse(output) as VerifierResult;
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
