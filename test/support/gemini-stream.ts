import { GeminiStreamTranslator } from '../../server/providers/gemini/stream.js';
import type { ChatChunk } from '../../server/providers/types.js';

/** Gemini SSE frames through the stream translator, as the chunks it yields (its end included). */
export function translateGeminiStream(frames: unknown[], model = 'gemini-2.5-flash'): ChatChunk[] {
  const tr = new GeminiStreamTranslator('gemini', model);
  const out: ChatChunk[] = [];
  for (const f of frames) {
    const c = tr.push({ data: JSON.stringify(f) });
    if (!c) continue;
    // As the adapter yields them: a held opening first, then the chunk, then a held finish.
    const opening = tr.openingChunk();
    if (opening) out.push(opening);
    out.push(c);
    const finish = tr.finishChunk();
    if (finish) out.push(finish);
  }
  out.push(tr.end());
  return out;
}
