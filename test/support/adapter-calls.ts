import type {
  CallOptions,
  ChatChunk,
  ChatRequest,
  ProviderAdapter,
  ProviderError,
} from '../../server/providers/types.js';

// Calling a provider adapter directly, as the tests against stand-in servers do.

/** Options for one call: a live signal and a 5 s bound. */
export const callOptions = (): CallOptions => ({ signal: new AbortController().signal, timeoutMs: 5_000 });

/** Every chunk of a streamed call. */
export async function streamed(adapter: ProviderAdapter, req: ChatRequest): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of adapter.chatStream({ ...req, stream: true }, callOptions())) out.push(c);
  return out;
}

/** The error `p` fails with; throws when it does not fail. */
export async function failureOf(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    return e as ProviderError;
  }
  throw new Error('did not fail');
}
