import { createRequire } from 'node:module';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Ethereum chain inside the process (`ANCHOR_RPC_URL=embedded`, and the tests): Hardhat's
 * EDR (the maintained successor of the Hardhat Network; ganache is archived) behind a small JSON-RPC
 * HTTP endpoint on 127.0.0.1. Every block is mined when a transaction arrives; the given addresses
 * start funded. Its state lives in memory: a restart starts a fresh chain.
 */

interface EdrProvider {
  handleRequest(request: string): Promise<{ data: string | object }>;
}

interface EdrModule {
  EdrContext: new () => {
    registerProviderFactory(chainType: string, factory: unknown): Promise<void>;
    createProvider(chainType: string, config: object, logger: object, subscriptions: object, decoder: unknown): Promise<EdrProvider>;
  };
  L1_CHAIN_TYPE: string;
  l1ProviderFactory(): unknown;
  l1GenesisState(hardfork: unknown): object[];
  l1HardforkLatest(): unknown;
  l1HardforkToString(hardfork: unknown): string;
  MineOrdering: { Priority: string };
  ContractDecoder: new () => unknown;
}

export const EMBEDDED_CHAIN_ID = 31337n;
const FUNDS = 10n ** 24n; // a million ether: anchoring never runs dry locally
const MAX_BODY_BYTES = 1024 * 1024;

let context: Promise<{ edr: EdrModule; context: InstanceType<EdrModule['EdrContext']> }> | undefined;

/** One EDR context per process (its constructor says so). */
function edrContext() {
  context ??= (async () => {
    const edr = createRequire(import.meta.url)('@nomicfoundation/edr') as EdrModule;
    const created = new edr.EdrContext();
    await created.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
    return { edr, context: created };
  })();
  return context;
}

export interface EmbeddedChain {
  url: string;
  /** Closes the HTTP endpoint (the chain's state stays in memory until the process ends). */
  close(): Promise<void>;
  /** Stops answering (connections refused) until `resume`; the chain keeps its state. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Sends one JSON-RPC request straight to the chain (tests: mine, inspect). */
  request(method: string, params?: unknown[]): Promise<unknown>;
}

async function createProvider(fundedAddresses: string[]): Promise<EdrProvider> {
  const { edr, context: created } = await edrContext();
  const hardfork = edr.l1HardforkLatest();
  const funded = fundedAddresses.map((address) => ({ address: Buffer.from(address.replace(/^0x/, ''), 'hex'), balance: FUNDS }));
  return created.createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: EMBEDDED_CHAIN_ID,
      coinbase: Buffer.alloc(20),
      defaultTransactionGasLimit: 16_000_000n,
      genesisState: [...edr.l1GenesisState(hardfork), ...funded],
      hardfork: edr.l1HardforkToString(hardfork),
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 30_000_000n },
      networkId: EMBEDDED_CHAIN_ID,
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
    { subscriptionCallback: () => undefined },
    new edr.ContractDecoder(),
  );
}

type RpcCall = { id?: unknown; method?: unknown; params?: unknown };

async function answer(provider: EdrProvider, call: RpcCall) {
  const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, method: call.method, params: call.params ?? [] }));
  const body = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as object;
  return { jsonrpc: '2.0', id: call.id ?? null, ...body };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('request too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function rpcServer(provider: EdrProvider): http.Server {
  return http.createServer(async (req, res) => {
    try {
      const body = JSON.parse(await readBody(req)) as RpcCall | RpcCall[];
      const result = Array.isArray(body) ? await Promise.all(body.map((call) => answer(provider, call))) : await answer(provider, body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    }
  });
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** Starts a fresh local chain with `fundedAddresses` funded, listening on 127.0.0.1 (`port` 0: any free one). */
export async function startEmbeddedChain(fundedAddresses: string[], port = 0): Promise<EmbeddedChain> {
  const provider = await createProvider(fundedAddresses);
  let server = rpcServer(provider);
  const boundPort = await listen(server, port);
  return {
    url: `http://127.0.0.1:${boundPort}`,
    close: () => closeServer(server),
    pause: () => closeServer(server),
    async resume() {
      server = rpcServer(provider);
      await listen(server, boundPort);
    },
    async request(method, params = []) {
      const reply = (await answer(provider, { id: 1, method, params })) as { result?: unknown; error?: { message: string } };
      if (reply.error) throw new Error(reply.error.message);
      return reply.result;
    },
  };
}
