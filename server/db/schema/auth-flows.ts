import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

// A sign-in begun at an identity provider and not yet come back: the state (OAuth) or request id
// (SAML) names it; it holds the PKCE verifier, the nonce and where to return. Consumed once by the
// callback, which also checks the browser holds the state cookie set at the start.
export const authFlows = pgTable('auth_flows', {
  state: text('state').primaryKey(),
  /** google, github, or saml:<tenantId>. */
  provider: text('provider').notNull(),
  codeVerifier: text('code_verifier'),
  nonce: text('nonce'),
  returnTo: text('return_to'),
  inviteToken: text('invite_token'),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  createdAt: createdAt(),
});

export type AuthFlowRow = typeof authFlows.$inferSelect;
