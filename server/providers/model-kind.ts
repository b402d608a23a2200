import type { CallOptions } from './types.js';

// What a discovered model id is for. A provider's models endpoint lists everything it serves:
// OpenAI's lists embedding, speech, transcription, image and moderation models beside the chat
// ones; Together's, Groq's, Mistral's, Gemini's and a local server's do the same. Only chat models
// may be chosen by the router (and explored, and picked as the judge's cheapest grader): sending a
// chat request to `tts-1` or `text-embedding-3-small` fails. Decided from the id's words, so chat
// models the catalog does not know (a local server's llama, a new release) stay routable.

/** Words (between `/`, `-`, `_`, `.`, `:`) that mark a model as something other than chat. */
const NOT_CHAT_WORDS = new Set([
  // embeddings and retrieval
  'embed',
  'embedding',
  'embeddings',
  'bge',
  'minilm',
  'e5',
  'gte',
  'retrieval',
  'rerank',
  'rank',
  'paraphrase',
  // speech and audio, with text-to-speech families whose ids carry no other marker
  'tts',
  'whisper',
  'transcribe',
  'speech',
  'audio',
  'realtime',
  'live',
  'sonic',
  'playai',
  'kokoro',
  'orpheus',
  'bark',
  'parler',
  'xtts',
  'melotts',
  'chatterbox',
  // images and video
  'dall',
  'image',
  'imagen',
  'flux',
  'sdxl',
  'diffusion',
  'sora',
  'veo',
  'ocr',
  // classifiers, legacy completion models, and models OpenAI serves only through its Responses API
  'moderation',
  'guard',
  'shieldgemma',
  'aqa',
  'davinci',
  'babbage',
  'computer',
  'codex',
  'research',
]);

/**
 * Marks found inside a word too: names glue them to other words (`embeddinggemma`,
 * `snowflake-arctic-embed2`, `textembedding-gecko`, `Qwen3-Reranker`, `VirtueGuard`, `LlamaGuard`).
 * No chat model's id holds one of them.
 */
const NOT_CHAT_PART = /embed|rerank|guard/;

/**
 * OpenAI models its chat completions endpoint does not serve: `o1-pro`, `o3-pro` and `gpt-5-pro`
 * (Responses API only; Gemini's `-pro` models chat), and the completions-only `gpt-3.5-turbo-instruct`.
 */
const RESPONSES_ONLY = /^(?:openai\/)?(?:o\d+-pro|gpt-5(?:\.\d+)?-pro|gpt-3\.5-turbo-instruct)(?:-|$)/i;

/** Words that mark an embedding model (a subset of the above). */
const EMBEDDING_WORDS = new Set([
  'embed',
  'embedding',
  'embeddings',
  'bge',
  'minilm',
  'e5',
  'gte',
  'retrieval',
  'paraphrase',
]);

/** A reranker scores pairs of texts: not an embedding model, though it may carry `bge` (`bge-reranker-v2-m3`). */
const RERANKER = /rerank/;

function words(model: string): string[] {
  return model.toLowerCase().split(/[/\-_.:]+/);
}

/** Whether a chat completion may be routed to this model. */
export function isChatModel(model: string): boolean {
  const id = model.toLowerCase();
  return !RESPONSES_ONLY.test(id) && !NOT_CHAT_PART.test(id) && !words(id).some((w) => NOT_CHAT_WORDS.has(w));
}

/** Whether this model turns text into embedding vectors. */
export function isEmbeddingModel(model: string): boolean {
  const id = model.toLowerCase();
  if (RERANKER.test(id)) return false;
  return id.includes('embed') || words(id).some((w) => EMBEDDING_WORDS.has(w));
}

/**
 * What a provider's models endpoint says: the ids it serves, and those of them it marks as not for
 * chat where its listing gives each model's kind (Together's `type`). Ids it does not mark are
 * decided by isChatModel alone.
 */
export interface ModelListing {
  ids: string[];
  notChat: ReadonlySet<string>;
}

/** An adapter whose models listing can say which models are not for chat. */
export interface ListsModelKinds {
  listModelKinds(opts: CallOptions): Promise<ModelListing>;
}
