// What a discovered model id is for. A provider's models endpoint lists everything it serves:
// OpenAI's lists embedding, speech, transcription, image and moderation models beside the chat
// ones; Together's, Groq's, Mistral's, Gemini's and a local server's do the same. Only chat models
// may be chosen by the router (and explored, and picked as the judge's cheapest grader): sending a
// chat request to `tts-1` or `text-embedding-3-small` fails. Decided from the id's words, so chat
// models the catalog does not know (a local server's llama, a new release) stay routable.

/** Words (between `/`, `-`, `_`, `.`, `:`) that mark a model as something other than chat. */
const NOT_CHAT_WORDS = new Set([
  // embeddings and retrieval
  'embed', 'embedding', 'embeddings', 'bge', 'minilm', 'e5', 'gte', 'retrieval', 'rerank', 'rank',
  // speech and audio
  'tts', 'whisper', 'transcribe', 'speech', 'audio', 'realtime', 'live', 'sonic', 'playai',
  // images and video
  'dall', 'image', 'imagen', 'flux', 'sdxl', 'diffusion', 'sora', 'veo', 'ocr',
  // classifiers, legacy completion models, and models OpenAI serves only through its Responses API
  'moderation', 'guard', 'aqa', 'davinci', 'babbage', 'computer', 'codex', 'research',
]);

/**
 * OpenAI models its chat completions endpoint does not serve: `o1-pro`, `o3-pro` and `gpt-5-pro`
 * (Responses API only; Gemini's `-pro` models chat), and the completions-only `gpt-3.5-turbo-instruct`.
 */
const RESPONSES_ONLY = /^(?:openai\/)?(?:o\d+-pro|gpt-5(?:\.\d+)?-pro|gpt-3\.5-turbo-instruct)(?:-|$)/i;

/** Words that mark an embedding model (a subset of the above). */
const EMBEDDING_WORDS = new Set(['embed', 'embedding', 'embeddings', 'bge', 'minilm', 'e5', 'gte', 'retrieval']);

function words(model: string): string[] {
  return model.toLowerCase().split(/[/\-_.:]+/);
}

/** Whether a chat completion may be routed to this model. */
export function isChatModel(model: string): boolean {
  return !RESPONSES_ONLY.test(model) && !words(model).some((w) => NOT_CHAT_WORDS.has(w));
}

/** Whether this model turns text into embedding vectors. */
export function isEmbeddingModel(model: string): boolean {
  return words(model).some((w) => EMBEDDING_WORDS.has(w));
}
