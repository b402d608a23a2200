// Reading chat message content: plain strings, or arrays of text and image parts.

import type { ChatMessage } from '../../providers/types.js';

const IMAGE_PART_TYPES = new Set(['image_url', 'image', 'input_image']);

/** The text of a message; text parts are joined with blank lines, other parts are skipped. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (part && part.type === 'text' && typeof part.text === 'string') text = text.length === 0 ? part.text : `${text}\n\n${part.text}`;
  }
  return text;
}

export function imageCount(content: ChatMessage['content']): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) if (part && IMAGE_PART_TYPES.has(part.type)) n++;
  return n;
}
