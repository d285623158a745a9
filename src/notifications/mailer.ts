import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SendMailOptions } from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/** One message ready to leave; `id` (the notification's uuid) makes the Message-ID stable across retries. */
export interface OutgoingMail {
  id: string;
  to: { name: string; address: string };
  subject: string;
  text: string;
  html?: string | null;
}

/** Where student mail goes: an SMTP server, or `.eml` files when none is configured. */
export interface Mailer {
  /** Resolves once the message is accepted; rejects with the reason otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

// Bounded so a silent server cannot hold a delivery (and its lease) for minutes.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function domainOf(from: string): string {
  return /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

function compose(mail: OutgoingMail, from: string): SendMailOptions {
  return {
    from,
    to: { name: mail.to.name, address: mail.to.address },
    subject: mail.subject,
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    // Inline images (the wallet offer's QR code) travel as cid: parts, which mail clients show; data: URLs many block.
    attachDataUrls: true,
    // A receiver can drop a duplicate of an at-least-once redelivery by this header.
    messageId: `<${mail.id}@${domainOf(from)}>`,
  };
}

/**
 * nodemailer is loaded, and the transport made, with the first message sent: a process that sends
 * none (most tests, a service whose mail waits in the queue) never loads it.
 */
function onFirstSend<T extends { close(): void }>(open: (mailer: typeof import('nodemailer')) => T) {
  let transport: Promise<T> | undefined;
  return {
    transport: () => (transport ??= import('nodemailer').then(open)),
    close: () =>
      void transport?.then(
        (opened) => opened.close(),
        () => undefined,
      ),
  };
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  const { transport, close } = onFirstSend((nodemailer) => nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }));
  return {
    async send(mail) {
      await (await transport()).sendMail(compose(mail, from));
    },
    close,
  };
}

/** Development without SMTP_URL: each message becomes `DATA_DIR/outbox/<notification uuid>.eml`. */
function fileMailer(outbox: string, from: string, logger: Logger): Mailer {
  const { transport, close } = onFirstSend((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  return {
    async send(mail) {
      const { message } = await (await transport()).sendMail(compose(mail, from));
      // Messages carry student data: only the service's own user may list or read them.
      await mkdir(outbox, { recursive: true, mode: 0o700 });
      await chmod(outbox, 0o700);
      const file = path.join(outbox, `${mail.id}.eml`);
      // Written aside and renamed, so a reader never sees half a message; a redelivery overwrites it.
      await writeFile(`${file}.tmp`, message as Buffer, { mode: 0o600 });
      await chmod(`${file}.tmp`, 0o600);
      await rename(`${file}.tmp`, file);
      logger.info({ notification: mail.id, subject: mail.subject, file }, 'notification written to the outbox directory (SMTP_URL not set)');
    },
    close,
  };
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, logger: Logger): Mailer {
  if (config.smtpUrl) return smtpMailer(config.smtpUrl, config.mailFrom);
  return fileMailer(path.join(config.dataDir, 'outbox'), config.mailFrom, logger);
}
