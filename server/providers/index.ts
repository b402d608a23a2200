// Public surface of the provider layer.
export * from './types.js';
export { createAdapter } from './factory.js';
export { OpenAICompatibleAdapter, type OpenAICompatibleOptions } from './openai-compatible/adapter.js';
export { AnthropicAdapter, ANTHROPIC_VERSION } from './anthropic/adapter.js';
export {
  DEFAULT_MAX_TOKENS as ANTHROPIC_DEFAULT_MAX_TOKENS,
  JSON_TOOL_NAME as ANTHROPIC_JSON_TOOL_NAME,
} from './anthropic/request.js';
export { GeminiAdapter } from './gemini/adapter.js';
export {
  PROVIDERS,
  SIMULATOR_MODELS,
  providerDefinition,
  resolveProviderSettings,
  simulatorProviderSettings,
  type ProviderDefinition,
  type SimulatorBaseUrls,
} from './catalog.js';
export { PRICING_AS_OF, LOCAL_PROVIDERS, costUsd, priceFor, pricedModels, type ModelPrice } from './pricing.js';
export {
  STRUCTURED_OUTPUT_RELIABLE,
  capabilitiesFor,
  isStructuredOutputReliable,
  modelInfo,
  modelTier,
  type ModelCapabilities,
  type ModelInfo,
  type ModelTier,
} from './capabilities.js';
export { countChatPromptTokens, countTokens, estimateTokens, warmTokenizer } from './token-count.js';
export {
  closeHttp,
  configureHttp,
  getJson,
  postJson,
  postSse,
  type HttpConfig,
  type HttpOptions,
  type SseEvent,
} from './http.js';
export { ProviderAbortedError, isAbortedError } from './http-errors.js';
