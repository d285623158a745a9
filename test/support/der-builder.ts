/**
 * A few DER constructors for tests that craft structures no library would write: certificate bombs,
 * absurd exponents, truncated or deeply nested CMS. The service itself reads and writes ASN.1 with
 * @peculiar/asn1-schema.
 */
export const Tag = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  UTC_TIME: 0x17,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

export const Oid = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  rsaEncryption: '1.2.840.113549.1.1.1',
  commonName: '2.5.4.3',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

export const contextTag = (n: number) => 0xa0 | n;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const value = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(value.length), value]);
}

export const sequence = (...content: Buffer[]) => tlv(Tag.SEQUENCE, ...content);
export const set = (...content: Buffer[]) => tlv(Tag.SET, ...content);
export const octetString = (value: Buffer) => tlv(Tag.OCTET_STRING, value);
export const derNull = () => Buffer.from([Tag.NULL, 0]);

export function integer(value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; ; rest = Math.floor(rest / 256)) {
    bytes.unshift(rest & 0xff);
    if (rest < 256) break;
  }
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(Tag.INTEGER, Buffer.from(bytes));
}

export function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const arcs = [first! * 40 + second!, ...rest];
  const bytes: number[] = [];
  for (const arc of arcs) {
    const groups: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift(0x80 | (value & 0x7f));
    bytes.push(...groups);
  }
  return tlv(Tag.OID, Buffer.from(bytes));
}
