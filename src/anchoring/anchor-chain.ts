import { FetchRequest, isError, JsonRpcProvider, Transaction, type TransactionReceipt, type Wallet } from 'ethers';

/**
 * The chain as anchoring sees it, through JSON-RPC with ethers v6: sign a data transaction carrying a
 * Merkle root, broadcast it, follow it to its confirmations. Every failure becomes an `AnchorFault`
 * with a reason the metrics and logs name.
 */

export type AnchorFaultReason = 'rpc_unreachable' | 'insufficient_funds' | 'rejected' | 'other';

export class AnchorFault extends Error {
  constructor(
    readonly reason: AnchorFaultReason,
    message: string,
  ) {
    super(message);
    this.name = 'AnchorFault';
  }
}

/**
 * A provider for one run: no network detection loop in the background, nothing kept between runs.
 * `timeoutMs` bounds each request (ethers waits 5 minutes by default): verification answers people.
 */
export function connectChain(rpcUrl: string, timeoutMs?: number): JsonRpcProvider {
  const request = new FetchRequest(rpcUrl);
  if (timeoutMs) request.timeout = timeoutMs;
  return new JsonRpcProvider(request, undefined, { staticNetwork: true, batchMaxCount: 1, polling: false });
}

export function faultOf(error: unknown): AnchorFault {
  if (error instanceof AnchorFault) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isError(error, 'INSUFFICIENT_FUNDS')) return new AnchorFault('insufficient_funds', 'The anchoring address cannot pay for the transaction; fund it.');
  if (isError(error, 'NETWORK_ERROR') || isError(error, 'TIMEOUT') || /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|ENOTFOUND/i.test(message)) {
    return new AnchorFault('rpc_unreachable', `The chain's JSON-RPC endpoint did not answer: ${message.slice(0, 200)}`);
  }
  if (isError(error, 'SERVER_ERROR') || isError(error, 'UNKNOWN_ERROR') || isError(error, 'BAD_DATA')) {
    return new AnchorFault('rpc_unreachable', `The chain's JSON-RPC endpoint failed: ${message.slice(0, 200)}`);
  }
  if (isError(error, 'CALL_EXCEPTION') || isError(error, 'REPLACEMENT_UNDERPRICED')) return new AnchorFault('rejected', message.slice(0, 300));
  return new AnchorFault('other', message.slice(0, 300));
}

export interface SignedAnchor {
  txHash: string;
  rawTransaction: string;
  nonce: number;
}

/** A transaction from the anchoring address to itself, value 0, data = the root: the cheapest way to put 32 bytes on chain. */
export async function signAnchor(provider: JsonRpcProvider, wallet: Wallet, merkleRoot: string, nonce?: number): Promise<SignedAnchor> {
  const signer = wallet.connect(provider);
  const request = await signer.populateTransaction({ to: wallet.address, value: 0n, data: `0x${merkleRoot}`, ...(nonce !== undefined ? { nonce } : {}) });
  const rawTransaction = await wallet.signTransaction(request);
  const transaction = Transaction.from(rawTransaction);
  return { txHash: transaction.hash!, rawTransaction, nonce: transaction.nonce };
}

export type BroadcastOutcome = 'sent' | 'known' | 'nonce_taken';

/** Sends the signed transaction again or for the first time; the node's "already known" is success. */
export async function broadcast(provider: JsonRpcProvider, rawTransaction: string): Promise<BroadcastOutcome> {
  try {
    await provider.broadcastTransaction(rawTransaction);
    return 'sent';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/already known|known transaction|already imported|AlreadyKnown/i.test(message)) return 'known';
    if (isError(error, 'NONCE_EXPIRED') || /nonce too low/i.test(message)) return 'nonce_taken';
    throw faultOf(error);
  }
}

export interface Confirmation {
  blockNumber: number;
  blockTime: Date;
  from: string;
}

/** The transaction's block once it has `confirmations` blocks (itself included), else null. */
export async function confirmation(provider: JsonRpcProvider, txHash: string, confirmations: number): Promise<Confirmation | null> {
  const receipt: TransactionReceipt | null = await provider.getTransactionReceipt(txHash);
  if (!receipt || receipt.status !== 1) return null;
  const latest = await provider.getBlockNumber();
  if (latest - receipt.blockNumber + 1 < confirmations) return null;
  const block = await provider.getBlock(receipt.blockNumber);
  if (!block) return null;
  return { blockNumber: receipt.blockNumber, blockTime: new Date(block.timestamp * 1000), from: receipt.from.toLowerCase() };
}

/** What verification reads of an anchoring transaction: its data (the root), sender and block. */
export async function anchoringTransaction(provider: JsonRpcProvider, txHash: string) {
  const transaction = await provider.getTransaction(txHash);
  if (!transaction || transaction.blockNumber === null) return null;
  const block = await provider.getBlock(transaction.blockNumber);
  return {
    data: transaction.data.replace(/^0x/, '').toLowerCase(),
    from: transaction.from.toLowerCase(),
    blockNumber: transaction.blockNumber,
    blockTime: block ? new Date(block.timestamp * 1000) : null,
  };
}
