import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** An SMTP server on loopback that keeps every message it receives, parsed. */
export async function startSmtpCapture() {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // Its built-in TLS certificate has expired: plain SMTP on loopback.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    mails,
    url: `smtp://127.0.0.1:${port}`,
    /** The mails sent to `to` so far. */
    to: (to: string) =>
      mails.filter((m) =>
        (Array.isArray(m.to) ? m.to : [m.to]).some((a) => a?.text.toLowerCase().includes(to.toLowerCase())),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link in a captured mail. */
export function linkIn(mail: ParsedMail): URL {
  const match = /https?:\/\/\S+\/auth\/magic-link\/verify\?token=[\w-]+/.exec(mail.text ?? '');
  if (!match) throw new Error(`no sign-in link in: ${mail.text}`);
  return new URL(match[0]);
}
