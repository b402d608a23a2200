// Characters a terminal or a table acts on instead of showing: C0 and C1 controls (ESC starts
// colour, title and cursor sequences; CSI is \u009b), DEL, the line and paragraph separators, and
// the bidirectional overrides that make text read in another order than it is stored. Given as
// the inside of a regular-expression character class.

/** The unprintable characters above ASCII's C0 controls (JSON.stringify escapes those itself). */
export const UNPRINTABLE_ABOVE_C0 = '\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';

/** Every unprintable character. */
export const UNPRINTABLE = `\\u0000-\\u001f${UNPRINTABLE_ABOVE_C0}`;
