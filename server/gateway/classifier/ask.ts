// Telling the request from the material pasted with it.
//
// "Summarize this:" followed by an article, a stack trace followed by "any idea?": the request
// ("the ask") sits at the start or the end, and what lies between is material. Cues in the ask
// count in full; cues in material are damped (see signals.ts), so an article's vocabulary cannot
// outvote the "summarize" above it, and its length counts as material, not as a long request.

import { N_TASKS } from './cues.js';

/** A first or last paragraph counts as the ask when at most this long (and it reads as a request). */
const ASK_PARA_CHARS = 700;
/** Failing that, its first or last line, when at most this long. */
const ASK_LINE_CHARS = 300;
/** A message with no more than this much prose and code is all ask, minus what is clearly pasted. */
const WHOLE_ASK_CHARS = 900;
/** Prose longer than this after a request line, or a paragraph this long with no request marker, reads as pasted. */
export const PASTE_CHARS = 200;

/** Prose statistics of a line, a paragraph, or a sum of them. */
export class Para {
  proseChars = 0;
  cx = 0;
  hard = 0;
  commas = 0;
  sentences = 0;
  questions = 0;
  listItems = 0;
  lines = 0;
  /** Request markers (REQUEST_CUES) seen. */
  req = 0;
  lastChar = 0;
  readonly task = new Float64Array(N_TASKS);

  reset(): void {
    this.proseChars = 0;
    this.cx = 0;
    this.hard = 0;
    this.commas = 0;
    this.sentences = 0;
    this.questions = 0;
    this.listItems = 0;
    this.lines = 0;
    this.req = 0;
    this.lastChar = 0;
    const t = this.task; // five elements: plain stores beat fill()
    t[0] = 0;
    t[1] = 0;
    t[2] = 0;
    t[3] = 0;
    t[4] = 0;
  }

  add(o: Para): void {
    this.proseChars += o.proseChars;
    this.cx += o.cx;
    this.hard += o.hard;
    this.commas += o.commas;
    this.sentences += o.sentences;
    this.questions += o.questions;
    this.listItems += o.listItems;
    this.lines += o.lines;
    this.req += o.req;
    if (o.proseChars > 0) this.lastChar = o.lastChar;
    for (let k = 0; k < N_TASKS; k++) this.task[k]! += o.task[k]!;
  }

  sub(o: Para): void {
    this.proseChars -= o.proseChars;
    this.cx -= o.cx;
    this.hard -= o.hard;
    this.commas -= o.commas;
    this.sentences -= o.sentences;
    this.questions -= o.questions;
    this.listItems -= o.listItems;
    this.lines -= o.lines;
    this.req -= o.req;
    for (let k = 0; k < N_TASKS; k++) this.task[k]! -= o.task[k]!;
  }

  copy(o: Para): void {
    this.reset();
    this.add(o);
  }

  /** Reads as said to the assistant rather than pasted in: a request marker, or ends in ? or :. */
  isRequest(): boolean {
    return this.req > 0 || this.lastChar === 63 || this.lastChar === 58;
  }
}

/** How a scanned text is laid out, as the scanner saw it. */
export interface Layout {
  firstLine: Para;
  lastLine: Para;
  firstPara: Para;
  lastPara: Para;
  /** All prose. */
  total: Para;
  /** Paragraphs that do not look pasted: short ones, and any with a request marker. */
  spoken: Para;
  paraCount: number;
  proseLineCount: number;
  codeChars: number;
  /** The whole text was read (no head and tail windows). */
  complete: boolean;
}

/**
 * Which prose is the request? The first and the last paragraph when they read as requests, or
 * just their first or last line when that line is a request and the rest of the paragraph is a
 * long paste ("summarize these reviews:" then the reviews). A short text is all request, minus
 * what is clearly pasted: such split-off lines, and long paragraphs with no request marker.
 */
export function pickAsk(l: Layout, ask: Para): void {
  const { firstLine, lastLine, firstPara, lastPara } = l;
  const headSplit = splitsOff(firstPara, firstLine, firstLine.lastChar === 58 || firstPara.req === firstLine.req);
  const tailSplit =
    l.proseLineCount > 1 &&
    splitsOff(
      lastPara,
      lastLine,
      l.paraCount > 1 ? lastPara.req === lastLine.req : lastPara.req === lastLine.req + (headSplit ? firstLine.req : 0),
    );
  if (l.complete && l.total.proseChars + l.codeChars <= WHOLE_ASK_CHARS) {
    if (l.spoken.proseChars === 0) {
      ask.copy(l.total);
      return;
    } // nothing reads as pasted after all
    ask.copy(l.spoken);
    if (headSplit || (tailSplit && l.paraCount === 1)) {
      ask.sub(firstPara);
      if (headSplit) ask.add(firstLine);
      if (tailSplit && l.paraCount === 1) ask.add(lastLine);
    }
    if (tailSplit && l.paraCount > 1) {
      ask.sub(lastPara);
      ask.add(lastLine);
    }
    return;
  }
  let headWhole = false;
  if (headSplit) ask.add(firstLine);
  else if (firstPara.proseChars <= ASK_PARA_CHARS && firstPara.isRequest()) {
    ask.add(firstPara);
    headWhole = true;
  } else if (firstLine.proseChars <= ASK_LINE_CHARS && firstLine.isRequest()) ask.add(firstLine);
  if (l.paraCount > 1) {
    if (tailSplit) ask.add(lastLine);
    else if (lastPara.proseChars <= ASK_PARA_CHARS && lastPara.isRequest()) ask.add(lastPara);
    else if (lastLine.proseChars <= ASK_LINE_CHARS && lastLine.isRequest()) ask.add(lastLine);
  } else if (!headWhole && l.proseLineCount > 1 && lastLine.proseChars <= ASK_LINE_CHARS && lastLine.isRequest()) {
    ask.add(lastLine);
  }
}

/** A request line at the edge of a paragraph whose other lines are a long paste. */
function splitsOff(para: Para, edge: Para, restHasNoRequest: boolean): boolean {
  return (
    para.lines > 1 &&
    edge.isRequest() &&
    para.listItems === 0 &&
    restHasNoRequest &&
    para.proseChars - edge.proseChars > PASTE_CHARS
  );
}
