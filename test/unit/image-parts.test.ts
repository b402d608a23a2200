import { describe, expect, it } from 'vitest';
import { imageCount, isImagePart } from '../../server/gateway/classifier/content.js';
import { needsOf } from '../../server/gateway/pipeline.js';
import type { ChatCall } from '../../server/gateway/types.js';

// What counts as an image: routing needs a vision model for it, and the cache does not take it.

const png = 'data:image/png;base64,iVBORw0KGgo=';

describe('isImagePart', () => {
  it('takes image parts, and file parts that hold an image (by data or by file name)', () => {
    expect(isImagePart({ type: 'image_url' })).toBe(true);
    expect(isImagePart({ type: 'file', file: { filename: 'a', file_data: png } })).toBe(true);
    expect(isImagePart({ type: 'file', file: { filename: 'scan.JPG' } })).toBe(true);
    expect(
      isImagePart({ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' } }),
    ).toBe(false);
    expect(isImagePart({ type: 'file', file: { file_id: 'file-1' } })).toBe(false);
    expect(isImagePart({ type: 'text' })).toBe(false);
  });

  it('makes a request with an image file need a vision model, and counts it for the classifier', () => {
    const content = [
      { type: 'text', text: 'what is this?' },
      { type: 'file', file: { filename: 'a', file_data: png } },
    ];
    const call = { body: { model: '', messages: [] }, messages: [{ role: 'user', content }] } as unknown as ChatCall;
    expect(needsOf(call).vision).toBe(true);
    expect(imageCount(content as never)).toBe(1);
  });
});
