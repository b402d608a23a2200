import { randomBytes } from 'node:crypto';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { SamlConnectionRow } from '../../db/schema/index.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { authRepository } from './repository.js';
import { safeReturnPath } from './return-path.js';
import { type PutSamlInput, type SamlConnection, toPem } from './saml-schemas.js';
import type { NewSession, SignInService } from './sign-in.js';

const FLOW_TTL_MS = 10 * 60_000;
/** Clock difference tolerated between this gateway and the IdP. */
const CLOCK_SKEW_MS = 60_000;
/** How long an assertion id is remembered when the assertion names no end of validity. */
const REPLAY_WINDOW_MS = 24 * 3_600_000;

export interface SamlDeps {
  db: Database;
  audit: AuditService;
  signIn: SignInService;
  publicUrl: string;
}

// SAML 2.0 per workspace, service-provider initiated: discover (by e-mail domain), start (an
// AuthnRequest by HTTP-Redirect), and the assertion consumer (HTTP-POST). @node-saml/node-saml
// checks the signature against the workspace's IdP certificate (the assertion must be signed),
// the audience and the validity window; this file adds what it leaves out: the issuer, the
// response must answer a request this gateway made for this workspace (InResponseTo, used once),
// be addressed to this ACS (Destination and every Recipient), and carry an assertion not seen
// before (replay). The e-mail must be in one of the workspace's domains.
export class SamlService {
  constructor(private readonly deps: SamlDeps) {}

  serviceProvider(tenantId: string) {
    const base = `${this.deps.publicUrl}/auth/saml/${tenantId}`;
    return { entityId: base, acsUrl: `${base}/acs`, startUrl: `${base}/start` };
  }

  async get(tenantId: string): Promise<z.infer<typeof SamlConnection>> {
    const row = await authRepository.samlConnection(this.deps.db, tenantId);
    return {
      configured: row !== undefined,
      idpEntityId: row?.idpEntityId ?? null,
      idpSsoUrl: row?.idpSsoUrl ?? null,
      idpCertificate: row?.idpCertificate ?? null,
      emailDomains: row?.emailDomains ?? [],
      defaultRole: row?.defaultRole ?? null,
      enabled: row?.enabled ?? false,
      serviceProvider: this.serviceProvider(tenantId),
    };
  }

  async put(tenantId: string, actor: ActorRef, input: z.infer<typeof PutSamlInput>) {
    const domains = [...new Set(input.emailDomains)];
    await this.deps.db.transaction(async (tx) => {
      const claimed = await authRepository.domainsClaimedElsewhere(tx, tenantId, domains);
      if (claimed.length > 0)
        throw new GatewayError('conflict_error', `Another workspace signs in ${claimed.join(', ')} with SAML already`);
      const before = await authRepository.samlConnection(tx, tenantId);
      const after = await authRepository.putSamlConnection(tx, tenantId, {
        ...input,
        idpCertificate: toPem(input.idpCertificate),
        emailDomains: domains,
      });
      await this.deps.audit.record(tx, {
        tenantId,
        actor,
        action: before ? 'saml.update' : 'saml.create',
        targetType: 'saml_connection',
        targetId: tenantId,
        before: before && summary(before),
        after: summary(after),
      });
    });
    return this.get(tenantId);
  }

  async remove(tenantId: string, actor: ActorRef) {
    await this.deps.db.transaction(async (tx) => {
      const before = await authRepository.deleteSamlConnection(tx, tenantId);
      if (!before) throw notFound('SAML connection of workspace', tenantId);
      await this.deps.audit.record(tx, {
        tenantId,
        actor,
        action: 'saml.delete',
        targetType: 'saml_connection',
        targetId: tenantId,
        before: summary(before),
      });
    });
    return this.get(tenantId);
  }

  /** The workspace whose IdP signs in `email`'s domain, or 404. */
  async discover(email: string): Promise<{ tenantId: string; startUrl: string }> {
    const domain = email.trim().toLowerCase().split('@')[1];
    const row = domain ? await authRepository.samlConnectionForDomain(this.deps.db, domain) : undefined;
    if (!row) throw new GatewayError('not_found_error', 'No SAML sign-in is set up for this e-mail domain');
    return { tenantId: row.tenantId, startUrl: this.serviceProvider(row.tenantId).startUrl };
  }

  /** The IdP URL carrying a fresh AuthnRequest; the request id is kept to match the answer. */
  async start(tenantId: string, returnTo: string | undefined, inviteToken: string | undefined): Promise<URL> {
    const connection = await this.connection(tenantId);
    const path = safeReturnPath(returnTo, this.deps.publicUrl);
    // An xs:ID must not start with a digit.
    const requestId = `_${randomBytes(20).toString('hex')}`;
    await authRepository.insertFlow(this.deps.db, {
      state: requestId,
      provider: `saml:${tenantId}`,
      returnTo: path,
      inviteToken: inviteToken || null,
      expiresAt: new Date(Date.now() + FLOW_TTL_MS),
    });
    const url = await this.saml(connection, () => requestId).getAuthorizeUrlAsync(requestId, undefined, {});
    return new URL(url);
  }

  /** Checks a posted SAMLResponse and signs its subject in to the workspace. */
  async acs(tenantId: string, samlResponse: string): Promise<{ session: NewSession; returnTo: string | null }> {
    const connection = await this.connection(tenantId);
    const refused = (why: string, cause?: unknown) =>
      new GatewayError('auth_error', `The SAML response was refused: ${why}`, { cause });
    let profile: Record<string, unknown> | null;
    try {
      ({ profile } = (await this.saml(connection).validatePostResponseAsync({ SAMLResponse: samlResponse })) as {
        profile: Record<string, unknown> | null;
      });
    } catch (err) {
      throw refused((err as Error).message, err);
    }
    if (!profile) throw refused('it carries no assertion');
    // node-saml compares the issuer of logout messages only: the assertion's is checked here.
    if (profile.issuer !== connection.idpEntityId) throw refused("its Issuer is not the workspace's IdP");
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
    const facts = responseFacts(xml);
    const { acsUrl } = this.serviceProvider(tenantId);
    if (facts.assertionIds.length !== 1) throw refused('it must carry exactly one assertion');
    if (facts.destination !== undefined && facts.destination !== acsUrl)
      throw refused('its Destination is not this ACS');
    if (facts.recipients.length === 0 || facts.recipients.some((r) => r !== acsUrl))
      throw refused('its Recipient is not this ACS');
    const expiresAt = new Date(facts.notOnOrAfter ?? Date.now() + REPLAY_WINDOW_MS);
    if (!(await authRepository.recordAssertion(this.deps.db, tenantId, facts.assertionIds[0]!, expiresAt)))
      throw refused('the assertion was used already');
    const flow = facts.inResponseTo
      ? await authRepository.takeFlow(this.deps.db, facts.inResponseTo, new Date())
      : undefined;
    if (!flow || flow.provider !== `saml:${tenantId}`)
      throw refused('it does not answer a sign-in this gateway started for this workspace (or that sign-in expired)');

    const email = String(profile.email ?? profile.mail ?? profile.nameID ?? '')
      .trim()
      .toLowerCase();
    const domain = email.split('@')[1];
    if (!domain || !connection.emailDomains.includes(domain))
      throw refused(`the e-mail '${email}' is not in the workspace's SAML domains`);
    const session = await this.deps.signIn.complete(
      {
        provider: `saml:${tenantId}`,
        subject: String(profile.nameID ?? email),
        email,
        name: typeof profile.displayName === 'string' ? profile.displayName : null,
      },
      { inviteToken: flow.inviteToken, samlWorkspace: { tenantId, defaultRole: connection.defaultRole } },
    );
    return { session, returnTo: flow.returnTo };
  }

  private async connection(tenantId: string): Promise<SamlConnectionRow> {
    const row = await authRepository.samlConnection(this.deps.db, tenantId);
    if (!row?.enabled) throw new GatewayError('not_found_error', 'This workspace has no SAML sign-in');
    return row;
  }

  private saml(connection: SamlConnectionRow, requestId?: () => string): SAML {
    const sp = this.serviceProvider(connection.tenantId);
    return new SAML({
      entryPoint: connection.idpSsoUrl,
      issuer: sp.entityId,
      audience: sp.entityId,
      callbackUrl: sp.acsUrl,
      idpCert: connection.idpCertificate,
      idpIssuer: connection.idpEntityId,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      // Checked above against the flows table, which every node shares (node-saml's cache is per process).
      validateInResponseTo: ValidateInResponseTo.never,
      disableRequestedAuthnContext: true,
      ...(requestId ? { generateUniqueId: requestId } : {}),
    });
  }
}

function summary(r: SamlConnectionRow) {
  return {
    idpEntityId: r.idpEntityId,
    idpSsoUrl: r.idpSsoUrl,
    emailDomains: r.emailDomains,
    defaultRole: r.defaultRole,
    enabled: r.enabled,
  };
}

/** What the checks above read from the (already signature-checked) response document. */
function responseFacts(xml: string) {
  const response = /<(?:[\w-]+:)?Response\b([^>]*)>/.exec(xml)?.[1] ?? '';
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  const confirmations = [...xml.matchAll(/<(?:[\w-]+:)?SubjectConfirmationData\b([^>]*)\/?>/g)].map((m) => m[1]!);
  const ends = confirmations
    .map((c) => attr(c, 'NotOnOrAfter'))
    .filter((v): v is string => v !== undefined)
    .map((v) => Date.parse(v))
    .filter((t) => Number.isFinite(t));
  return {
    inResponseTo: attr(response, 'InResponseTo'),
    destination: attr(response, 'Destination'),
    assertionIds: [...xml.matchAll(/<(?:[\w-]+:)?Assertion\b[^>]*?\sID="([^"]+)"/g)].map((m) => m[1]!),
    recipients: confirmations.map((c) => attr(c, 'Recipient')).filter((v): v is string => v !== undefined),
    notOnOrAfter: ends.length > 0 ? Math.max(...ends) + CLOCK_SKEW_MS : undefined,
  };
}
