import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/client.js';
import { hashToken } from '../../lib/crypto.js';
import { GatewayError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Mailer } from './mailer.js';
import { authRepository } from './repository.js';
import type { NewSession, SignInService } from './sign-in.js';

export interface MagicLinkDeps {
  db: Database;
  mailer: Mailer;
  signIn: SignInService;
  logger: Logger;
  publicUrl: string;
  ttlMs: number;
  perHour: number;
}

const HOUR_MS = 3_600_000;
/** One client address (an office behind one NAT) may ask for this many times an address's share. */
const PER_CLIENT_FACTOR = 10;

// Sign-in by e-mail. The request answers the same whether or not the address has an account (a
// new address gets a workspace on first sign-in, like OAuth), and sends off the request path, so
// neither the answer nor its timing tells addresses apart. Requests are limited per address and per
// client address (ten times as many) over the last hour, counted on the stored links, so the limits
// hold across gateway nodes. The link carries a random token; only its hash is stored; verify uses
// it up once, before it expires.
export class MagicLinkService {
  constructor(private readonly deps: MagicLinkDeps) {}

  async request(email: string, clientAddress: string, inviteToken: string | null): Promise<void> {
    const now = Date.now();
    const token = randomBytes(32).toString('base64url');
    await this.deps.db.transaction(async (tx) => {
      await authRepository.lockMagicLinkRequests(tx, email);
      const used = await authRepository.countMagicLinkRequests(tx, email, clientAddress, new Date(now - HOUR_MS));
      if (used.forEmail >= this.deps.perHour || used.fromClient >= this.deps.perHour * PER_CLIENT_FACTOR)
        throw new GatewayError('rate_limit_error', 'Too many sign-in links asked for: try again later', {
          retryAfterMs: HOUR_MS / this.deps.perHour,
        });
      await authRepository.insertMagicLink(tx, {
        hash: hashToken(token),
        email,
        inviteToken,
        clientAddress,
        expiresAt: new Date(now + this.deps.ttlMs),
      });
    });
    const link = `${this.deps.publicUrl}/auth/magic-link/verify?token=${token}`;
    const minutes = Math.round(this.deps.ttlMs / 60_000);
    void this.deps.mailer
      .send({
        to: email,
        subject: 'Your sign-in link',
        text: `Sign in to the gateway:\n\n${link}\n\nThe link works once, for ${minutes} minutes. If you did not ask for it, ignore this mail.\n`,
      })
      .catch((err: unknown) => this.deps.logger.error({ err }, 'sign-in mail could not be sent'));
  }

  /** Uses the link up and signs in; an unknown, used or expired token is a 401. */
  async verify(token: string): Promise<NewSession> {
    const link = await authRepository.consumeMagicLink(this.deps.db, hashToken(token), new Date());
    if (!link) throw new GatewayError('auth_error', 'The sign-in link is unknown, used or expired: ask for a new one');
    return this.deps.signIn.complete(
      { provider: 'email', subject: link.email, email: link.email, name: null },
      { inviteToken: link.inviteToken },
    );
  }
}
