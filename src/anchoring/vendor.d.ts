declare module '@blockcerts/lds-merkle-proof-2019' {
  export class Encoder {
    constructor(json: object);
    encode(): string;
  }
  export class Decoder {
    constructor(base58: string);
    decode(): Record<string, unknown>;
  }
}

declare module 'jsonld' {
  const jsonld: {
    canonize(
      input: object,
      options: { algorithm: 'RDFC-1.0' | 'URDNA2015'; format: 'application/n-quads'; safe?: boolean; documentLoader: (url: string) => Promise<object> },
    ): Promise<string>;
  };
  export default jsonld;
}
