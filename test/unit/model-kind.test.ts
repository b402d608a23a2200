import { describe, expect, it } from 'vitest';
import { isChatModel, isEmbeddingModel } from '../../server/providers/model-kind.js';

// Ids as providers' models endpoints list them.
const CHAT = [
  'gpt-4o-mini',
  'gpt-4.1-2025-04-14',
  'o3-mini',
  'gpt-4o-search-preview',
  'claude-sonnet-4-5',
  'gemini-2.5-flash',
  'models/gemini-2.0-flash',
  'mistral-small-latest',
  'codestral-latest',
  'llama-3.3-70b-versatile',
  'openai/gpt-oss-120b',
  'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  'deepseek-ai/DeepSeek-V3',
  'llama3.2:3b',
  'qwen2.5-coder:7b',
  'llama-3.2-11b-vision-preview',
  'gemini-2.5-pro',
  'o3',
  'o4-mini',
  'codestral-2501',
  'chatgpt-4o-latest',
  'gpt-5',
  'gpt-5.1-chat-latest',
  'mistralai/Mistral-7B-Instruct-v0.3',
  // Local servers' and Together's chat models, next to which non-chat ones are listed below.
  'gpt-4o',
  'deepseek-chat',
  'gemma3:latest',
  'phi4:latest',
  'llava:13b',
  'llama3.2-vision:11b',
  'deepseek-r1:14b',
  'gpt-oss:20b',
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
  'moonshotai/Kimi-K2-Instruct',
  'voxtral-small-latest',
];
const EMBEDDING = [
  'text-embedding-3-small',
  'text-embedding-ada-002',
  'gemini-embedding-001',
  'models/text-embedding-004',
  'mistral-embed',
  'codestral-embed',
  'nomic-embed-text',
  'mxbai-embed-large',
  'all-minilm',
  'BAAI/bge-large-en-v1.5',
  'togethercomputer/m2-bert-80M-8k-retrieval',
  'intfloat/multilingual-e5-large-instruct',
  'Alibaba-NLP/gte-modernbert-base',
  // Marks glued to other words, and a sentence-transformers family.
  'embeddinggemma:latest',
  'snowflake-arctic-embed2:latest',
  'textembedding-gecko@003',
  'paraphrase-multilingual:latest',
];
const OTHER = [
  'tts-1',
  'tts-1-hd',
  'gpt-4o-mini-tts',
  'whisper-1',
  'whisper-large-v3',
  'distil-whisper-large-v3-en',
  'gpt-4o-transcribe',
  'gpt-4o-realtime-preview',
  'gpt-4o-audio-preview',
  'dall-e-3',
  'gpt-image-1',
  'imagen-3.0-generate-002',
  'black-forest-labs/FLUX.1-schnell',
  'omni-moderation-latest',
  'mistral-moderation-latest',
  'mistral-ocr-latest',
  'meta-llama/llama-guard-4-12b',
  'gemini-2.0-flash-live-001',
  'Salesforce/Llama-Rank-V1',
  'davinci-002',
  'babbage-002',
  'aqa',
  'veo-2.0-generate-001',
  'playai-tts',
  'computer-use-preview',
  'o1-pro',
  'o3-pro-2025-06-10',
  'o3-deep-research',
  'o4-mini-deep-research',
  'codex-mini-latest',
  'gpt-5-pro',
  'gpt-5-pro-2025-10-06',
  'gpt-3.5-turbo-instruct',
  // Rerankers, guard models and speech models whose ids carry no whole marker word.
  'Qwen/Qwen3-Reranker-8B',
  'BAAI/bge-reranker-v2-m3',
  'VirtueAI/VirtueGuard-Text-Lite',
  'llama-guard3:8b',
  'hexgrad/Kokoro-82M',
  'canopylabs/orpheus-3b-0.1-ft',
];

describe('model kinds', () => {
  it('keeps chat models routable, whether or not the catalog knows them', () => {
    expect(CHAT.filter((m) => !isChatModel(m))).toEqual([]);
    expect(CHAT.filter(isEmbeddingModel)).toEqual([]);
  });

  it('tells embedding models apart, and keeps them, every other non-chat model and the Responses-only ones out of routing', () => {
    expect(EMBEDDING.filter((m) => !isEmbeddingModel(m))).toEqual([]);
    expect([...EMBEDDING, ...OTHER].filter(isChatModel)).toEqual([]);
    expect(OTHER.filter(isEmbeddingModel)).toEqual([]);
  });
});
