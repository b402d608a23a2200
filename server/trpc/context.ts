import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../services.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import { requestIdOf } from '../http/request-id.js';

// The tRPC context: the request, the service container, and a lazy principal (a bearer token or a
// session cookie) so public procedures never touch the token store.
export interface Context {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  services: Services;
  authenticate(): Promise<Principal>;
}

export function makeContextFactory(services: Services) {
  // Typed loosely because the tRPC adapters hand over their own request/response aliases.
  return ({ req, res }: { req: unknown; res: unknown }): Context => {
    let principal: Promise<Principal> | undefined;
    const request = req as IncomingMessage;
    const response = res as ServerResponse;
    return {
      req: request,
      res: response,
      requestId: requestIdOf(response),
      services,
      authenticate: () => (principal ??= services.signIn.requestAuth.authenticate(request)),
    };
  };
}
