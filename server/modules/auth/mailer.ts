import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../../lib/logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * Mail through the configured SMTP server (GATEWAY_SMTP_URL). Without one, a development
 * deployment (NODE_ENV=development) writes the mail to the log so sign-in can be tried locally;
 * any other refuses to send (and says so in the log), never printing sign-in links.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; development: boolean; logger: Logger }): Mailer {
  if (opts.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: opts.from, ...mail });
      },
      close: () => transport.close(),
    };
  }
  return {
    async send(mail) {
      if (opts.development)
        opts.logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail (no SMTP configured)');
      else opts.logger.warn({ subject: mail.subject }, 'mail not sent: GATEWAY_SMTP_URL is not set');
    },
    close: () => undefined,
  };
}
