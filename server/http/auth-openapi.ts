import { z } from 'zod';
import { registerOpenApiPaths } from '../trpc/openapi.js';
import { errorResponse } from './chat-openapi.js';

// The sign-in routes (server/http/auth-routes.ts) in the OpenAPI document. They exist in
// multi-tenant mode only (GATEWAY_MODE=multi).

const tags = ['Auth'];
const Provider = z.enum(['google', 'github']).describe('The OAuth identity provider');
const LoginQuery = z.object({
  return: z.string().optional().describe('A path on this deployment to land on after sign-in (default /auth/me)'),
  invite_token: z
    .string()
    .optional()
    .describe('Join the inviting workspace (the invite must be for the signed-in e-mail)'),
});
const redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: 'string' as const } } },
});
const TenantParam = z.object({ tenantId: z.string().describe('Workspace id') });
const Me = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }).nullable(),
  workspace: z.object({ id: z.string(), name: z.string(), tier: z.string() }),
  role: z.enum(['owner', 'admin', 'member', 'read-only']).nullable(),
  tier: z.string(),
  authenticatedBy: z.enum(['session', 'token']),
  csrfToken: z
    .string()
    .nullable()
    .describe('For a session: send it as X-CSRF-Token on every change made with the session cookie'),
});
const failures = {
  '400': errorResponse('A bad query or body (invalid_request_error)'),
  '401': errorResponse('The sign-in failed or is not valid (auth_error)'),
  '500': errorResponse('An unexpected failure (internal_error)'),
};

registerOpenApiPaths({
  '/auth/login/{provider}': {
    get: {
      operationId: 'auth-login',
      tags,
      summary: 'Start an OAuth sign-in (redirects to the identity provider)',
      requestParams: { path: z.object({ provider: Provider }), query: LoginQuery },
      responses: {
        '302': redirect("The provider's authorization URL (state, PKCE and, for OpenID Connect, a nonce)"),
        '400': failures['400'],
        '404': errorResponse('The provider is not configured (not_found_error)'),
      },
    },
  },
  '/auth/callback/{provider}': {
    get: {
      operationId: 'auth-callback',
      tags,
      summary: 'Where the identity provider returns: checks state, PKCE and nonce and opens a session',
      requestParams: { path: z.object({ provider: Provider }) },
      responses: {
        '302': redirect('Signed in: the session cookie is set; on to `return` (default /auth/me)'),
        ...failures,
      },
    },
  },
  '/auth/magic-link/request': {
    post: {
      operationId: 'auth-magic-link-request',
      tags,
      summary: 'Send a sign-in link by e-mail (the same answer whether or not the address is known)',
      requestBody: {
        content: {
          'application/json': { schema: z.object({ email: z.string(), invite_token: z.string().optional() }) },
        },
      },
      responses: {
        '202': {
          description: 'Sent (if the address can sign in)',
          content: { 'application/json': { schema: z.object({ status: z.literal('sent'), message: z.string() }) } },
        },
        '400': failures['400'],
        '429': errorResponse('Too many links asked for this address or from this client (rate_limit_error)'),
      },
    },
  },
  '/auth/magic-link/verify': {
    get: {
      operationId: 'auth-magic-link-page',
      tags,
      summary: 'The page the mailed link opens: a button that posts the token (a link scanner spends nothing)',
      requestParams: { query: z.object({ token: z.string() }) },
      responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
    },
    post: {
      operationId: 'auth-magic-link-verify',
      tags,
      summary: 'Use up a sign-in link and open a session',
      requestBody: {
        content: {
          'application/json': { schema: z.object({ token: z.string() }) },
          'application/x-www-form-urlencoded': { schema: z.object({ token: z.string() }) },
        },
      },
      responses: {
        '200': {
          description: 'Signed in (JSON body): the session cookie is set',
          content: { 'application/json': { schema: Me } },
        },
        '303': redirect('Signed in (form post): on to /auth/me'),
        ...failures,
      },
    },
  },
  '/auth/saml/discover': {
    get: {
      operationId: 'auth-saml-discover',
      tags,
      summary: 'The workspace whose SAML identity provider signs in an e-mail domain',
      requestParams: { query: z.object({ email: z.string() }) },
      responses: {
        '200': {
          description: 'Found',
          content: { 'application/json': { schema: z.object({ tenantId: z.string(), startUrl: z.string() }) } },
        },
        '400': failures['400'],
        '404': errorResponse('No SAML sign-in for the domain (not_found_error)'),
      },
    },
  },
  '/auth/saml/{tenantId}/start': {
    get: {
      operationId: 'auth-saml-start',
      tags,
      summary: "Start a SAML sign-in (redirects to the workspace's IdP with an AuthnRequest)",
      requestParams: { path: TenantParam, query: LoginQuery },
      responses: {
        '302': redirect('The IdP single sign-on URL (HTTP-Redirect binding)'),
        '400': failures['400'],
        '404': errorResponse('The workspace has no SAML sign-in (not_found_error)'),
      },
    },
  },
  '/auth/saml/{tenantId}/acs': {
    post: {
      operationId: 'auth-saml-acs',
      tags,
      summary: 'The assertion consumer service (HTTP-POST binding): checks the response and opens a session',
      description:
        'The assertion must be signed with the certificate set in PUT /v1/admin/saml, issued by its entity id, for this audience and recipient, within its validity window, in answer to a request this gateway made, and not seen before.',
      requestParams: { path: TenantParam },
      requestBody: {
        content: {
          'application/x-www-form-urlencoded': {
            schema: z.object({ SAMLResponse: z.string(), RelayState: z.string().optional() }),
          },
        },
      },
      responses: {
        '303': redirect('Signed in: the session cookie is set; on to `return` (default /auth/me)'),
        ...failures,
        '404': errorResponse('The workspace has no SAML sign-in (not_found_error)'),
      },
    },
  },
  '/auth/logout': {
    post: {
      operationId: 'auth-logout',
      tags,
      summary: 'End the session (needs X-CSRF-Token)',
      responses: {
        '200': {
          description: 'Signed out; the cookie is cleared',
          content: { 'application/json': { schema: z.object({ signedOut: z.literal(true) }) } },
        },
        '401': failures['401'],
        '403': errorResponse('X-CSRF-Token missing or wrong (permission_error)'),
      },
    },
  },
  '/auth/me': {
    get: {
      operationId: 'auth-me',
      tags,
      summary: 'The signed-in user, workspace, role and tier (session cookie or bearer token)',
      security: [{ bearerAuth: [] }],
      responses: {
        '200': { description: 'The caller', content: { 'application/json': { schema: Me } } },
        '401': failures['401'],
      },
    },
  },
});
