import { z } from 'zod';
import { GatewayError } from '../../lib/errors.js';
import { findUnstorableText, unstorableTextMessage } from '../../lib/storable-text.js';
import { describeZodError } from '../../lib/zod-errors.js';
import { parseChatBody } from '../../gateway/validate.js';

// One eval case (a JSONL line, or the body of POST /v1/evals/datasets/{id}/cases), and the limits
// of a dataset. A bad line refuses the whole upload, naming its line number: nothing is stored.

/** Cases one dataset may hold (uploaded and appended together). */
export const MAX_CASES_PER_DATASET = 10_000;
/** Bytes (UTF-8) of one JSONL upload; a larger one is a 413. */
export const MAX_JSONL_BYTES = 5 * 1024 * 1024;
/** Characters of one case's expected value. */
export const MAX_EXPECTED_CHARS = 10_000;

export const CaseInput = z.strictObject({
  input: z
    .array(z.unknown())
    .min(1, 'input must hold at least one chat message')
    .max(200)
    .describe('Chat messages, as in a chat-completion request (text or multimodal)'),
  expected: z
    .union([z.string().max(MAX_EXPECTED_CHARS), z.number()])
    .transform(String)
    .optional()
    .describe(
      'The correct answer: exact-match compares the first token of the output with it, regex-match reads it as a JavaScript regular expression (bare or /source/flags); the judge ignores it',
    ),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Any object, kept with the case'),
});

export interface ParsedCase {
  input: unknown[];
  expected: string | null;
  metadata: Record<string, unknown> | null;
}

/** A case, validated; throws the reason (without a location) as a plain message. */
function parseCase(raw: unknown): ParsedCase {
  const parsed = CaseInput.safeParse(raw);
  if (!parsed.success) throw new Error(describeZodError(parsed.error));
  const unstorable = findUnstorableText(raw);
  if (unstorable) throw new Error(unstorableTextMessage(unstorable));
  try {
    // The chat body's own validation: the same messages a chat call would take.
    parseChatBody({ model: '', messages: parsed.data.input });
  } catch (err) {
    throw new Error(`input: ${(err as Error).message.replace(/^messages\.?/, '')}`);
  }
  return { input: parsed.data.input, expected: parsed.data.expected ?? null, metadata: parsed.data.metadata ?? null };
}

/** One case given as an object (the append endpoint). */
export function validateCase(raw: unknown): ParsedCase {
  try {
    return parseCase(raw);
  } catch (err) {
    throw new GatewayError('invalid_request_error', (err as Error).message);
  }
}

/** Every non-blank line of a JSONL text as a case (none for an empty text); the first bad line is a 400 naming its number (1-based). */
export function parseJsonl(jsonl: string): ParsedCase[] {
  if (Buffer.byteLength(jsonl, 'utf8') > MAX_JSONL_BYTES)
    throw new GatewayError('invalid_request_error', `jsonl: larger than ${MAX_JSONL_BYTES} bytes`, { status: 413 });
  const cases: ParsedCase[] = [];
  const lines = jsonl.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    if (cases.length >= MAX_CASES_PER_DATASET)
      throw new GatewayError(
        'invalid_request_error',
        `jsonl: more than ${MAX_CASES_PER_DATASET} cases (the most one dataset holds)`,
        { status: 413 },
      );
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new GatewayError(
        'invalid_request_error',
        `jsonl line ${i + 1}: not valid JSON (${(err as Error).message})`,
      );
    }
    try {
      cases.push(parseCase(raw));
    } catch (err) {
      throw new GatewayError('invalid_request_error', `jsonl line ${i + 1}: ${(err as Error).message}`);
    }
  }
  // An empty text makes an empty dataset, to fill case by case or from captured requests; running
  // it is refused until it holds a case.
  return cases;
}
