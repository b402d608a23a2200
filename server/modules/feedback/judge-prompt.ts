import type { ChatMessage } from '../../providers/types.js';

// The grading prompt of the LLM judge and the parser of its answer.

const MAX_CHARS = 6_000;

export const JUDGE_SYSTEM =
  "You grade the quality of an AI assistant's answer to a user. Consider correctness, helpfulness, completeness and following the instructions.";
const JUDGE_FORMAT =
  'Reply with a single line of the form "Score: N" where N is an integer from 1 (useless or wrong) to 5 (excellent). No other text.';

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max / 2)}\n[...]\n${text.slice(-max / 2)}` : text;
}

export function judgeMessages(prompt: ChatMessage[], answer: string): ChatMessage[] {
  const conversation = prompt
    .map(
      (m) =>
        `${m.role.toUpperCase()}: ${typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : `[${p.type}]`)).join(' ')}`,
    )
    .join('\n\n');
  return [
    { role: 'system', content: JUDGE_SYSTEM },
    {
      role: 'user',
      content: `CONVERSATION:\n${clip(conversation, MAX_CHARS)}\n\nASSISTANT ANSWER:\n${clip(answer, MAX_CHARS)}\n\nGrade the answer. ${JUDGE_FORMAT}`,
    },
  ];
}

/** "Score: 4" (or a bare digit) -> 4; undefined when no 1-5 score can be read. */
export function parseJudgeScore(text: string): number | undefined {
  // A grade is a few characters: only the start of the answer is read, so a long answer (a grader
  // coaxed by the graded prompt into padding) cannot make the patterns below backtrack for long.
  const answer = text.trim();
  const labelled = /score\s*[:=]?\s*([1-5])\b/i.exec(answer.slice(0, MAX_GRADE_CHARS));
  if (labelled) return Number(labelled[1]);
  // A bare grade is the whole answer.
  const bare = answer.length <= MAX_GRADE_CHARS ? /^([1-5])(?:\s*\/\s*5)?\s*\.?$/.exec(answer) : null;
  return bare ? Number(bare[1]) : undefined;
}

const MAX_GRADE_CHARS = 200;
