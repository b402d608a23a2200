// Reading chat message content: plain strings, or arrays of text and image parts.

import type { ChatMessage } from '../../providers/types.js';

const IMAGE_PART_TYPES = new Set(['image_url', 'image', 'input_image']);

/** An image file by its name, for a `file` part without inline data. */
const IMAGE_FILE_NAME = /\.(?:png|jpe?g|gif|webp|bmp|tiff?|heic|heif)$/i;

/**
 * Whether a content part is an image: an image part, or a `file` part holding one (OpenAI's file
 * input, which the Anthropic and Gemini translations send as an image). Routing needs a vision model
 * for it, and the cache does not take it.
 */
export function isImagePart(part: { type?: unknown; file?: unknown } | null | undefined): boolean {
  if (!part) return false;
  if (IMAGE_PART_TYPES.has(part.type as string)) return true;
  if (part.type !== 'file' || typeof part.file !== 'object' || part.file === null) return false;
  const file = part.file as { file_data?: unknown; filename?: unknown };
  if (typeof file.file_data === 'string') return /^data:image\//i.test(file.file_data);
  return typeof file.filename === 'string' && IMAGE_FILE_NAME.test(file.filename);
}

/** The text of a message; text parts are joined with blank lines, other parts are skipped. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (part && part.type === 'text' && typeof part.text === 'string')
      text = text.length === 0 ? part.text : `${text}\n\n${part.text}`;
  }
  return text;
}

export function imageCount(content: ChatMessage['content']): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) if (isImagePart(part)) n++;
  return n;
}
