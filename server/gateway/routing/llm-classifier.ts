import { llmClassifierPrompt, parseLlmClassification } from '../classifier/index.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatRequest } from '../../providers/types.js';
import { estimateUsage, reportedUsage } from '../../providers/usage.js';
import { isReasoningModel } from '../../providers/capabilities.js';
import { costRow } from '../accounting.js';
import { resolvePinned } from './targets.js';
import type { LlmClassifier } from './engine.js';

const TIMEOUT_MS = 5_000;
const MAX_TOKENS = 20;

/**
 * Why `model` is a poor classifier, for a start-up warning, or undefined. A reasoning model's hidden
 * tokens count against the classifier's small limit (its answer can come back empty), and it
 * thinks on the request's path.
 */
export function classifierModelWarning(model: string): string | undefined {
  if (!isReasoningModel(model)) return undefined;
  return `GATEWAY_CLASSIFIER_MODEL ${model} reasons in hidden tokens before it answers: under the classifier's ${MAX_TOKENS}-token limit its answers may come back empty, and it adds its thinking time to requests. Choose a model that answers directly.`;
}

/**
 * The optional LLM classification used when the in-process classifier is unsure: one short call
 * to GATEWAY_CLASSIFIER_MODEL. Its cost row is returned, and logged against the request it classified.
 */
export function llmClassifier(registry: ProviderRegistry, model: string): LlmClassifier {
  return async (call, messages) => {
    const target = resolvePinned(registry, model);
    const adapter = registry.get(target.provider)?.adapter;
    if (!adapter) return undefined;
    const prompt = llmClassifierPrompt(messages);
    const request: ChatRequest = {
      model: target.model,
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      temperature: 0,
      max_tokens: MAX_TOKENS,
    };
    // The call's scope bounds it by TIMEOUT_MS and aborts it with the client.
    const completion = await adapter.chat(request, { signal: call.signal, timeoutMs: TIMEOUT_MS });
    const text = completion.choices[0]?.message.content;
    // Counted like any call whose provider reports no usage.
    const usage =
      reportedUsage(completion.usage) ?? (await estimateUsage(request, typeof text === 'string' ? text : ''));
    const labels = typeof text === 'string' ? parseLlmClassification(text) : undefined;
    return { labels, cost: costRow(call, target, usage, 'ok') };
  };
}
