import { GatewayError } from '../../lib/errors.js';

/**
 * Where a sign-in may send the browser back to: a path on this deployment, or an absolute URL of
 * its own origin (GATEWAY_PUBLIC_URL), reduced to its path. Anything else (another host, `//host`,
 * a backslash some browsers read as a slash, a scheme such as javascript:) is a 400: the sign-in
 * must not become an open redirect.
 */
export function safeReturnPath(value: string | undefined | null, publicUrl: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  const refuse = () => new GatewayError('invalid_request_error', "'return' must be a path on this deployment");
  if (value.length > 2_000 || /[\\\u0000-\u001f]/.test(value)) throw refuse();
  const base = new URL(publicUrl);
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw refuse();
  }
  if (url.origin !== base.origin) throw refuse();
  if (!value.startsWith('/') && !value.startsWith(base.origin)) throw refuse();
  if (value.startsWith('//')) throw refuse();
  return `${url.pathname}${url.search}${url.hash}`;
}
