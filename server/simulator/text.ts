// Deterministic reply generation and token accounting shared by all three wire formats.
// Each format parses its request into a GenRequest; plan() decides the whole reply up front, so a
// streamed and a non-streamed answer to the same request carry identical text and usage.
import { randomBytes } from 'node:crypto';
import { sampleSchema } from './schema-sample.js';
import { mulberry32 } from './faults.js';
import { HiddenQuality } from './hidden-quality.js';

export interface ToolDef {
  name: string;
  parameters?: unknown;
}

/** 'auto' | 'none' | 'required' (some tool must be called) | a tool name (that tool must be called). */
export type ToolMode = 'auto' | 'none' | 'required' | { name: string };

export interface GenRequest {
  model: string;
  /** Characters of all prompt text (system, messages, tool results). */
  promptChars: number;
  messageCount: number;
  imageCount: number;
  /** Characters of the serialised tool definitions, which providers bill as prompt tokens. */
  toolsChars: number;
  /** The text the reply echoes: the last user message, or the last tool result. */
  lastText: string;
  /** The conversation ends with a tool result, so an 'auto' model answers in text. */
  lastIsToolResult: boolean;
  maxTokens?: number;
  stop: string[];
  tools: ToolDef[];
  toolMode: ToolMode;
  /** JSON output asked for; schema undefined means any JSON object. */
  json?: { schema?: unknown };
}

export type Finish = 'stop' | 'length' | 'stop_sequence' | 'tool_calls';

export interface Plan {
  promptTokens: number;
  /** Equals the number of streamed pieces (text pieces, or tool argument fragments plus one). */
  outputTokens: number;
  /** Text pieces in order; empty for a tool call. One stream frame each. */
  pieces: string[];
  text: string;
  toolCall?: { name: string; arguments: string; argPieces: string[]; args: unknown };
  finish: Finish;
  stopSequence: string | null;
}

const FILLER = (
  'the quick brown fox jumps over the lazy dog while a simulated upstream model keeps ' +
  'talking so that streams have enough pieces to measure latency and throughput with'
).split(' ');
const IMAGE_TOKENS = 85;

export interface ReplyRule {
  whenContains: string;
  reply: string;
}

export function plan(
  g: GenRequest,
  naturalTokens: number,
  qualities: Readonly<Record<string, number>> = {},
  rules: readonly ReplyRule[] = [],
  hidden?: HiddenQuality,
): Plan {
  const promptTokens =
    Math.ceil(g.promptChars / 4) + 3 * g.messageCount + 3 + IMAGE_TOKENS * g.imageCount + Math.ceil(g.toolsChars / 4);

  // Scripted answers: a request whose last message contains a rule's text gets its reply verbatim.
  const rule = rules.find((r) => g.lastText.includes(r.whenContains));
  if (rule) {
    const pieces = rule.reply.split(/(?=\s)/);
    return { promptTokens, outputTokens: pieces.length, pieces, text: rule.reply, finish: 'stop', stopSequence: null };
  }

  const grade = gradeFor(g.lastText, qualities, hidden);
  if (grade !== undefined) {
    const pieces = ['Score:', ` ${grade}`];
    return {
      promptTokens,
      outputTokens: pieces.length,
      pieces,
      text: pieces.join(''),
      finish: 'stop',
      stopSequence: null,
    };
  }

  const tool = pickTool(g);
  if (tool) {
    const args = sampleSchema(tool.parameters);
    const argsJson = JSON.stringify(args);
    const argPieces = splitPieces(argsJson, 8);
    return {
      promptTokens,
      outputTokens: argPieces.length + 1,
      pieces: [],
      text: '',
      toolCall: { name: tool.name, arguments: argsJson, argPieces, args },
      finish: 'tool_calls',
      stopSequence: null,
    };
  }

  let pieces: string[];
  if (g.json) {
    const value =
      g.json.schema !== undefined ? sampleSchema(g.json.schema) : { reply: replyWords(g, naturalTokens).join('') };
    pieces = splitPieces(JSON.stringify(value), 4);
  } else {
    pieces = replyWords(g, naturalTokens);
    const q = hidden?.qualityOf(g.model, g.lastText);
    if (q !== undefined) pieces.push(` ${HiddenQuality.tag(q)}`);
  }

  let finish: Finish = 'stop';
  let stopSequence: string | null = null;
  if (g.stop.length > 0) {
    const full = pieces.join('');
    let at = -1;
    for (const s of g.stop) {
      if (!s) continue;
      const i = full.indexOf(s);
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        stopSequence = s;
      }
    }
    if (at >= 0) {
      pieces = truncateAt(pieces, at);
      finish = 'stop_sequence';
    }
  }
  if (g.maxTokens !== undefined && g.maxTokens >= 0 && pieces.length > g.maxTokens) {
    pieces = pieces.slice(0, g.maxTokens);
    finish = 'length';
    stopSequence = null;
  }
  return { promptTokens, outputTokens: pieces.length, pieces, text: pieces.join(''), finish, stopSequence };
}

/**
 * A grading request (an instruction to answer in the form "Score: N") is answered like a judge
 * model would: the grade of the simulated model whose reply is being graded, from the configured
 * hidden qualities, or a stable 1-5 derived from that model's name.
 */
function gradeFor(
  text: string,
  qualities: Readonly<Record<string, number>>,
  hidden?: HiddenQuality,
): number | undefined {
  if (!text.includes('of the form "Score: N"')) return undefined;
  const tagged = HiddenQuality.taggedQuality(text);
  if (tagged !== undefined && hidden) return hidden.grade(tagged);
  const graded = /Simulated reply from (\S+)/.exec(text)?.[1];
  if (graded === undefined) return 3;
  const q = qualities[graded];
  if (q !== undefined) return Math.min(5, Math.max(1, Math.round(q)));
  let h = 0;
  for (let i = 0; i < graded.length; i++) h = (h * 31 + graded.charCodeAt(i)) >>> 0;
  return (h % 5) + 1;
}

function pickTool(g: GenRequest): ToolDef | undefined {
  if (g.tools.length === 0 || g.toolMode === 'none') return undefined;
  if (typeof g.toolMode === 'object') {
    const name = g.toolMode.name;
    return g.tools.find((t) => t.name === name) ?? g.tools[0];
  }
  // After a tool result an 'auto' model answers in text, so agent loops terminate.
  if (g.toolMode === 'auto' && g.lastIsToolResult) return undefined;
  return g.tools[0];
}

/** "Simulated reply from <model> to: <first words>" padded with filler words; one piece per word. */
function replyWords(g: GenRequest, n: number): string[] {
  const words = ['Simulated', 'reply', 'from', g.model];
  const echo = g.lastText.slice(0, 200).split(/\s+/).filter(Boolean).slice(0, 8);
  if (echo.length > 0) words.push('to:', ...echo);
  for (let i = 0; words.length < n; i++) words.push(FILLER[i % FILLER.length]!);
  if (words.length > n) words.length = Math.max(n, 1);
  return words.map((w, i) => (i === 0 ? w : ' ' + w));
}

/** Keeps the text strictly before character index `at`; a piece straddling it is shortened. */
function truncateAt(pieces: string[], at: number): string[] {
  const out: string[] = [];
  let pos = 0;
  for (const p of pieces) {
    if (pos + p.length <= at) {
      out.push(p);
      pos += p.length;
      continue;
    }
    if (at > pos) out.push(p.slice(0, at - pos));
    break;
  }
  return out;
}

/** Fixed-size pieces that never split a surrogate pair (a lone half would corrupt the UTF-8). */
export function splitPieces(s: string, size: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    let end = Math.min(i + size, s.length);
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < s.length) end++;
    out.push(s.slice(i, end));
    i = end;
  }
  return out;
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Deterministic unit vector derived from the text (FNV-1a hash seeding a PRNG). */
export function embed(text: string, dims: number): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const rand = mulberry32(h);
  const v = new Array<number>(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = rand() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) v[i] = v[i]! / norm;
  return v;
}

/**
 * `text`'s embedding, unless a scripted similarity matches it: then `similarity` x e(anchor) plus
 * the rest along a direction orthogonal to it (from the text's own vector), so that the cosine
 * similarity with e(anchor) is exactly `similarity`.
 */
export function scriptedEmbed(
  text: string,
  dims: number,
  rules: ReadonlyArray<{ whenContains: string; anchor: string; similarity: number }>,
): number[] {
  const rule = rules.find((r) => text.includes(r.whenContains));
  if (!rule) return embed(text, dims);
  const a = embed(rule.anchor, dims);
  const t = embed(text, dims);
  let dot = 0;
  for (let i = 0; i < dims; i++) dot += a[i]! * t[i]!;
  // The part of t orthogonal to a, normalised.
  const o = t.map((v, i) => v - dot * a[i]!);
  const norm = Math.sqrt(o.reduce((s, v) => s + v * v, 0)) || 1;
  const rest = Math.sqrt(Math.max(0, 1 - rule.similarity ** 2));
  return a.map((v, i) => rule.similarity * v + (rest * o[i]!) / norm);
}

export function clampDims(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 4096 ? v : 64;
}

// Ids: a random per-process prefix plus a counter: unique, cheap, and no per-request entropy.
const ID_BASE = randomBytes(6).toString('hex');
let idCounter = 0;
export function newId(prefix: string): string {
  idCounter = (idCounter + 1) % 0x7fffffff;
  return prefix + ID_BASE + idCounter.toString(36).padStart(8, '0');
}

/** Sums the characters of every string reachable under `v` (for token estimates of block content). */
export function textChars(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) {
    let n = 0;
    for (const x of v) n += textChars(x);
    return n;
  }
  if (typeof v === 'object' && v !== null) {
    let n = 0;
    for (const x of Object.values(v)) n += textChars(x);
    return n;
  }
  return 0;
}
