// Mistral's reasoning models (Small 4 and Medium 3.5 with reasoning_effort "high", Large 4 by
// default, the Magistral models always) answer with `content` as a list of chunks where OpenAI's
// format has a string: `{type: "thinking", thinking: [{type: "text", text}]}` then
// `{type: "text", text}`; streamed, the thinking arrives as such lists and the answer as plain
// strings. A client of the OpenAI SDK reads `content` as a string (the judge and the cache do too),
// so such a list becomes OpenAI's shape: the text in `content`, the thinking in
// `reasoning_content`, the field DeepSeek, vLLM and others use for it (never sent back upstream:
// see accepted-fields.ts). A list holding any other kind of chunk is left as it came.
import { isRecord } from '../util.js';

/**
 * Rewrites `holder.content` (a message, or with `delta` a stream delta) when it is a list of
 * thinking and text chunks; true when it did. A message without text gets `content: null`, as
 * OpenAI's messages have; a delta without text gets no `content`.
 */
export function flattenContentChunks(holder: Record<string, unknown>, delta: boolean): boolean {
  const content = holder['content'];
  if (!Array.isArray(content)) return false;
  let text: string | undefined;
  let thinking: string | undefined;
  for (const chunk of content) {
    if (!isRecord(chunk)) return false;
    if (chunk['type'] === 'text' && typeof chunk['text'] === 'string') {
      text = (text ?? '') + chunk['text'];
    } else if (chunk['type'] === 'thinking' && Array.isArray(chunk['thinking'])) {
      for (const part of chunk['thinking']) {
        if (!isRecord(part) || typeof part['text'] !== 'string') return false;
        thinking = (thinking ?? '') + part['text'];
      }
    } else {
      return false;
    }
  }
  if (text !== undefined) holder['content'] = text;
  else if (delta) delete holder['content'];
  else holder['content'] = null;
  if (thinking !== undefined) {
    const earlier = holder['reasoning_content'];
    holder['reasoning_content'] = typeof earlier === 'string' ? earlier + thinking : thinking;
  }
  return true;
}
