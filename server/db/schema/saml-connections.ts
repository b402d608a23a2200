import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { TEAM_ROLES } from './memberships.js';
import { tenantId, updatedAt } from './columns.js';

// A workspace's SAML identity provider, set by its admins (PUT /v1/admin/saml).
export const samlConnections = pgTable('saml_connections', {
  tenantId: tenantId().primaryKey(),
  /** The IdP's entity id: the Issuer its responses must carry. */
  idpEntityId: text('idp_entity_id').notNull(),
  idpSsoUrl: text('idp_sso_url').notNull(),
  /** PEM (or bare base64) signing certificate of the IdP. */
  idpCertificate: text('idp_certificate').notNull(),
  /** Lower-cased e-mail domains discovered to this workspace. */
  emailDomains: text('email_domains').array().notNull(),
  /** Role of a user the IdP signs in for the first time. */
  defaultRole: text('default_role', { enum: TEAM_ROLES }).notNull().default('member'),
  enabled: boolean('enabled').notNull().default(true),
  updatedAt: updatedAt(),
});

export type SamlConnectionRow = typeof samlConnections.$inferSelect;
