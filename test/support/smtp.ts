import type net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that records what it accepts and refuses chosen recipients. */
export class SmtpListener {
  readonly received: ReceivedMail[] = [];
  readonly refused = new Set<string>();
  port = 0;
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo: (address, _session, callback) => {
      if (!this.refused.has(address.address)) return callback();
      callback(Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 }));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        this.received.push({ from: mailFrom ? mailFrom.address : '', to: rcptTo.map(({ address }) => address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });

  listen(port = 0): Promise<this> {
    return new Promise((resolve) => {
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.server.address() as net.AddressInfo).port;
        resolve(this);
      });
    });
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** One header of a raw RFC 822 message, unfolded. */
export function header(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' ');
  return head
    .split('\r\n')
    .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.replace(/^[^:]+:\s*/, '');
}

/** A header with RFC 2047 encoded-words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) decoded. */
export function decodedHeader(raw: string, name: string): string | undefined {
  const value = header(raw, name);
  return value?.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_word, encoding: string, text: string) =>
    encoding.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
