import type { ChatMessage } from '../../providers/types.js';
import { isImagePart } from '../classifier/content.js';

// SPEC.md cache eligibility: temperature 0 or unset; no x-gateway-no-cache header; no cache:false
// in the body; not routed by an active A/B test; no image content (image requests skip both layers).

export interface EligibilityInput {
  temperature: unknown;
  cacheFlag: unknown;
  noCacheHeader: string | undefined;
  routedByAbTest: boolean;
  messages: ChatMessage[];
}

export function isCacheable(i: EligibilityInput): boolean {
  if (i.temperature !== undefined && i.temperature !== null && i.temperature !== 0) return false;
  if (i.cacheFlag === false) return false;
  if (i.noCacheHeader !== undefined && i.noCacheHeader.trim().toLowerCase() === 'true') return false;
  if (i.routedByAbTest) return false;
  return !hasImage(i.messages);
}

export function hasImage(messages: ChatMessage[]): boolean {
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const part of m.content) if (isImagePart(part)) return true;
  }
  return false;
}
