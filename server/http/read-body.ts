import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../lib/errors.js';

/**
 * Reads and parses a JSON request body, bounded by `limit` bytes (413 beyond, without reading the
 * rest). Used by the chat fast path instead of a body-parser middleware chain.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new GatewayError('invalid_request_error', 'Request body too large', { status: 413 }));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new GatewayError('invalid_request_error', 'Request body too large', { status: 413 }));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > limit) return;
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
      try {
        resolve(text.length === 0 ? undefined : JSON.parse(text));
      } catch {
        reject(new GatewayError('invalid_request_error', 'Request body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}
