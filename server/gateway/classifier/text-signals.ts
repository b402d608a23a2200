import { N_TASKS } from './cues.js';

// The counts scanText (signals.ts) returns for one message. Apart from signals.ts because the
// scanner writes into it: the scanner needs the type, and signals.ts needs the scanner.

/** What one message's text shows. Counts are over the scanned windows; `chars` is the full length. */
export class TextSignals {
  chars = 0;
  scanned = 0;
  /** Lexical evidence per text task: the ask in full, material damped by its size. */
  readonly task = new Float64Array(N_TASKS);
  /** Characters of the request itself, and of everything else (pasted text and code). */
  askChars = 0;
  materialChars = 0;
  /** Shape of the ask: complexity cues, commas, sentences, questions, list items. */
  askCx = 0;
  /** Cues of a hard kind of ask (design, proof, trade-offs...) in the ask. */
  askHard = 0;
  askCommas = 0;
  askSentences = 0;
  askQuestions = 0;
  askListItems = 0;
  fences = 0;
  codeLines = 0;
  proseLines = 0;
  fileRefs = 0;
  fileLineRefs = 0;
  diffLines = 0;
  shellLines = 0;
  identifiers = 0;
  operators = 0;
  calls = 0;
  inlineCode = 0;
  /** Words of failure output (error, exception, traceback...). */
  errorWords = 0;
  endsWithQuestion = false;
}
