// Google Gemini: its catalog entry (its request and thinking rules: request.ts, thinking.ts).
import type { ProviderDefinition } from '../definition.js';

export const gemini: ProviderDefinition = {
  name: 'gemini',
  family: 'gemini',
  apiKeyEnv: 'GEMINI_API_KEY',
  baseUrlEnv: 'GEMINI_BASE_URL',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  builtinModels: [
    'gemini-3.1-pro-preview',
    'gemini-3.8-flash',
    'gemini-3.5-flash-lite',
    'gemini-2.5-flash-lite',
    'gemini-embedding-001',
  ],
};
