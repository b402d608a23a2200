import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { TEAM_ROLES } from '../../db/schema/memberships.js';
import { rest } from '../../trpc/meta.js';

/** A PEM certificate, or its bare base64 body (as IdP metadata carries it). */
const Certificate = z
  .string()
  .trim()
  .max(20_000)
  .refine((value) => {
    try {
      new X509Certificate(toPem(value));
      return true;
    } catch {
      return false;
    }
  }, 'not an X.509 certificate (PEM or base64)')
  .describe("The IdP's signing certificate, PEM or base64");

const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]+\.)+[a-z]{2,63}$/, 'not a domain name (example.com)');

export const PutSamlInput = z
  .object({
    idpEntityId: z.string().trim().min(1).max(1_000).describe('The Issuer of the IdP (its entity id)'),
    idpSsoUrl: z
      .url({ protocol: /^https?$/ })
      .max(2_000)
      .describe('The IdP single sign-on URL (HTTP-Redirect binding)'),
    idpCertificate: Certificate,
    emailDomains: z.array(Domain).min(1).max(50).describe('E-mail domains GET /auth/saml/discover sends to this IdP'),
    defaultRole: z
      .enum(TEAM_ROLES)
      .exclude(['owner'])
      .default('member')
      .describe('Role of a user signing in the first time'),
    enabled: z.boolean().default(true),
  })
  .strict();

export const SamlConnection = z.object({
  configured: z.boolean(),
  idpEntityId: z.string().nullable(),
  idpSsoUrl: z.string().nullable(),
  idpCertificate: z.string().nullable(),
  emailDomains: z.array(z.string()),
  defaultRole: z.enum(TEAM_ROLES).nullable(),
  enabled: z.boolean(),
  serviceProvider: z
    .object({
      entityId: z.string().describe('The audience the IdP must put in its assertions'),
      acsUrl: z.string().describe('The assertion consumer service URL (HTTP-POST binding)'),
      startUrl: z.string(),
    })
    .describe('What to enter at the IdP'),
});

const tag = 'SAML';
export const samlMeta = {
  get: rest('GET', '/v1/admin/saml', tag, "The workspace's SAML identity provider, and the values to give it", {
    admin: true,
  }),
  put: rest('PUT', '/v1/admin/saml', tag, "Set the workspace's SAML identity provider", {
    admin: true,
    errors: [409],
    description: 'An e-mail domain another workspace claims already is a 409.',
  }),
  remove: rest('DELETE', '/v1/admin/saml', tag, "Remove the workspace's SAML identity provider", {
    admin: true,
    errors: [404],
  }),
};

export function toPem(cert: string): string {
  if (cert.includes('BEGIN CERTIFICATE')) return cert;
  const body = cert.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}
