import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/client.js';
import type { TeamRole } from '../../db/schema/memberships.js';
import { hashToken } from '../../lib/crypto.js';
import { GatewayError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/service.js';
import type { TeamService } from '../team/service.js';
import type { TenantService } from '../tenants/service.js';
import { authRepository } from './repository.js';

/** Who an identity provider says signed in. The e-mail is one the provider has verified. */
export interface VerifiedIdentity {
  /** google, github, email (a magic link), saml:<tenantId>. */
  provider: string;
  /** The provider's stable id of the account. */
  subject: string;
  email: string;
  name: string | null;
}

export interface SignInOptions {
  inviteToken?: string | null;
  /** A SAML sign-in: the workspace is the one whose IdP answered; a new user joins with its role. */
  samlWorkspace?: { tenantId: string; defaultRole: TeamRole };
}

export interface NewSession {
  /** The cookie value: shown to the browser only, stored hashed. */
  secret: string;
  csrf: string;
  tenantId: string;
  userId: string;
  expiresAt: Date;
}

export interface SignInDeps {
  db: Database;
  team: TeamService;
  tenants: TenantService;
  audit: AuditService;
  sessionTtlMs: number;
}

// What every sign-in method ends with: the user found (by the provider's account, then by the
// verified e-mail) or made, the workspace chosen, a session opened. An unknown user gets a new
// free workspace as its owner; an invite joins the inviting workspace instead; otherwise the
// workspace the user joined first.
export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  async complete(identity: VerifiedIdentity, opts: SignInOptions = {}): Promise<NewSession> {
    const email = identity.email.trim().toLowerCase();
    const { team, tenants } = this.deps;
    return this.deps.db.transaction(async (tx) => {
      const linkedId = await authRepository.identityUser(tx, identity.provider, identity.subject);
      const linked = linkedId ? await team.userById(linkedId) : undefined;
      const user = linked ?? (await team.ensureUser(tx, email, identity.name));
      if (!linked) await authRepository.linkIdentity(tx, identity.provider, identity.subject, user.id);

      let tenantId: string;
      if (opts.inviteToken) {
        tenantId = await team.acceptInvite(tx, opts.inviteToken, user);
      } else if (opts.samlWorkspace) {
        tenantId = opts.samlWorkspace.tenantId;
        await team.addMember(tx, tenantId, user, opts.samlWorkspace.defaultRole, 'saml');
      } else {
        const first = (await team.workspacesOf(tx, user.id))[0];
        if (first) tenantId = first.tenantId;
        else {
          tenantId = await tenants.createWorkspace(tx, `${email}'s workspace`, 'free');
          await team.addMember(tx, tenantId, user, 'owner', identity.provider);
        }
      }
      if (!(await team.roleOf(tx, tenantId, user.id)))
        throw new GatewayError('auth_error', 'This account is not a member of the workspace');

      const secret = `gws_${randomBytes(32).toString('base64url')}`;
      const csrf = randomBytes(24).toString('base64url');
      const expiresAt = new Date(Date.now() + this.deps.sessionTtlMs);
      const session = await authRepository.insertSession(tx, {
        id: newId('ses'),
        hash: hashToken(secret),
        tenantId,
        userId: user.id,
        csrf,
        method: identity.provider.startsWith('saml:') ? 'saml' : identity.provider,
        expiresAt,
      });
      await this.deps.audit.record(tx, {
        tenantId,
        actor: { type: 'user', id: user.id },
        action: 'session.create',
        targetType: 'session',
        targetId: session.id,
        after: { method: session.method, expiresAt: expiresAt.toISOString() },
      });
      return { secret, csrf, tenantId, userId: user.id, expiresAt };
    });
  }

  /** Ends the session (every process hears it through SESSIONS_CHANNEL). */
  async signOut(tenantId: string, userId: string, sessionId: string): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      await authRepository.revokeSession(tx, sessionId);
      await this.deps.audit.record(tx, {
        tenantId,
        actor: { type: 'user', id: userId },
        action: 'session.revoke',
        targetType: 'session',
        targetId: sessionId,
      });
      await authRepository.announce(tx, sessionId);
    });
  }
}
