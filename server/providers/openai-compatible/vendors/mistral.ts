// Mistral: its catalog entry, the request fields it takes (it refuses any other with 422), its
// tool-call ids and its reasoning efforts.
import { createHash } from 'node:crypto';
import type { ProviderDefinition } from '../../definition.js';
import type { ChatRequest } from '../../types.js';
import { askedEffort } from '../../translation-rules.js';
import { refuser } from '../../util.js';
import type { AcceptedFields } from '../accepted-fields.js';
import { withEffort } from '../reasoning-rules.js';

/** Mistral's chat completions request (its API reference). */
export const MISTRAL_FIELDS: AcceptedFields = {
  top: {
    only: new Set([
      'model',
      'messages',
      'temperature',
      'top_p',
      'max_tokens',
      'stream',
      'stop',
      'random_seed',
      'response_format',
      'tools',
      'tool_choice',
      'presence_penalty',
      'frequency_penalty',
      'n',
      'prediction',
      'parallel_tool_calls',
      'prompt_mode',
      'safe_prompt',
      // Per model: see mistralReasoningEffort below.
      'reasoning_effort',
    ]),
  },
  renamed: { max_completion_tokens: 'max_tokens', seed: 'random_seed' },
  message: {
    system: { only: new Set(['role', 'content']) },
    user: { only: new Set(['role', 'content']) },
    assistant: { only: new Set(['role', 'content', 'tool_calls', 'prefix']) },
    tool: { only: new Set(['role', 'content', 'tool_call_id', 'name']) },
  },
  toolCallId: mistralToolCallId,
};

/**
 * Mistral refuses a tool-call id that is not exactly 9 letters or digits ("Tool call id was call_…
 * but must be a-z, A-Z, 0-9, with a length of 9"): a conversation whose tool turns another provider
 * served would always fail there. Such an id goes as 9 characters of its digest: a call and its
 * result map alike, and distinct ids stay distinct (to 53 bits).
 */
function mistralToolCallId(id: string): string {
  if (MISTRAL_TOOL_ID.test(id)) return id;
  return createHash('sha256')
    .update(id)
    .digest('base64')
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 9);
}

const MISTRAL_TOOL_ID = /^[a-zA-Z0-9]{9}$/;

/** Mistral's models that take `reasoning_effort` (see mistralReasoningEffort). */
const MISTRAL_NONE_OR_HIGH =
  /^mistral-(?:small-(?:latest|4|26(?:0[3-9]|1[0-2])|2[7-9]\d\d)|medium-(?:3-5|latest|26(?:0[4-9]|1[0-2])|2[7-9]\d\d))/;
const MISTRAL_LEVELS = /^mistral-large-4/;

/**
 * Mistral: `reasoning_effort` is taken by Mistral Small 4 (mistral-small-latest, mistral-small-2603
 * on) and Medium 3.5 (mistral-medium-3-5, mistral-medium-latest, mistral-medium-2604 on), as
 * "none" (the thinking left out of the answer) or "high", and by Large 4 (mistral-large-4), which
 * thinks by default, as "low", "medium" or "high" (Mistral's reasoning guide). OpenAI's other efforts go as the nearest of those;
 * every other Mistral model refuses the field, so it is left out for them, as a hint they lack.
 */
export function mistralReasoningEffort(body: ChatRequest, provider: string): ChatRequest {
  if (body['reasoning_effort'] === undefined) return body;
  const twoLevels = MISTRAL_NONE_OR_HIGH.test(body.model);
  const effort = twoLevels || MISTRAL_LEVELS.test(body.model) ? askedEffort(body, refuser(provider)) : undefined;
  if (effort === undefined) return withEffort(body, undefined);
  const low = effort === 'none' || effort === 'minimal';
  return withEffort(body, twoLevels ? (low ? 'none' : 'high') : low ? 'low' : effort === 'xhigh' ? 'high' : effort);
}

export const mistral: ProviderDefinition = {
  name: 'mistral',
  family: 'openai-compatible',
  apiKeyEnv: 'MISTRAL_API_KEY',
  baseUrlEnv: 'MISTRAL_BASE_URL',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  builtinModels: [
    'mistral-large-latest',
    'mistral-medium-latest',
    'mistral-small-latest',
    'codestral-latest',
    'ministral-8b-latest',
    'mistral-embed',
  ],
  // Mistral refuses fields it does not define (stream_options among them) with 422, and always
  // reports usage on its last chunk.
  openaiCompat: { streamUsageOption: false, acceptedFields: MISTRAL_FIELDS, adjustRequest: mistralReasoningEffort },
};
