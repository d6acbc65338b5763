// A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps every message it receives.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpFake {
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpFake(): Promise<SmtpFake> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The text of a received mail: its body after the headers, quoted-printable soft breaks and escapes decoded. */
export function mailText(mail: ReceivedMail): string {
  const body = mail.raw.slice(mail.raw.indexOf('\r\n\r\n') + 4);
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The subject header of a received mail (as sent: plain ASCII subjects are not encoded). */
export function mailSubject(mail: ReceivedMail): string {
  return /^Subject: (.*(?:\r\n[ \t].*)*)/m.exec(mail.raw)?.[1]?.replace(/\r\n[ \t]/g, ' ') ?? '';
}
