// The text a rule is matched against: what the model would read from the caller. Every message's
// text except the assistant's own turns (user, system, developer, tool and function results), the
// text parts of multimodal content, and each string input of an embeddings call, joined by newlines.

type Part = { type?: unknown; text?: unknown };
type Message = { role?: unknown; content?: unknown };

export function chatText(messages: readonly Message[]): string {
  let out = '';
  for (const m of messages) {
    if (m.role === 'assistant') continue;
    const c = m.content;
    if (typeof c === 'string') out = out ? `${out}\n${c}` : c;
    else if (Array.isArray(c))
      for (const p of c as Part[])
        if (p && typeof p.text === 'string' && (p.type === 'text' || p.type === 'input_text'))
          out = out ? `${out}\n${p.text}` : p.text;
  }
  return out;
}

export function embeddingsText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  return input.filter((x): x is string => typeof x === 'string').join('\n');
}
