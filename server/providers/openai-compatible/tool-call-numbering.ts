import type { ChatChunk } from '../types.js';
import { startsAnotherCall } from '../util.js';

// Streamed tool calls as OpenAI numbers them: each call under its own index, 0, 1, ... in the
// order the calls start, every later delta of a call under the same index. Clients merge deltas by
// index (the OpenAI SDKs' stream helpers append a delta's name and arguments to the call at its
// index), so a server that departs from this breaks them. Ollama does: it may send several whole
// calls all under index 0, each with its own id (the client saw one call named
// `file_writefile_write` with both arguments glued), or deltas with no index at all. A delta that
// names a function under an id other than the call at its index starts a call of its own (some
// servers send a fresh id with every fragment of one call: without a name, a fragment continues
// it); one without an index continues the last call. Streams that number calls as OpenAI does pass
// unchanged.

type ChoiceDelta = ChatChunk['choices'][number]['delta'];

/** One choice's calls so far. */
interface ChoiceCalls {
  /** By upstream index: the client index of the call it currently continues. */
  clientIndexAt: number[];
  /** By upstream index: that call's id ('' until one came). */
  idAt: string[];
  /** The last call a delta went to (for deltas without an index): its client index, -1 before any... */
  lastIndex: number;
  /** ...and its id. */
  lastId: string;
  /** The client index the next call gets. */
  next: number;
}

export class ToolCallNumbering {
  /** By choice index; allocated with a stream's first tool call. */
  private choices: Map<number, ChoiceCalls> | undefined;

  /** Renumbers the tool-call deltas of one choice's delta in place; true when any index changed. */
  renumber(choiceIndex: number, delta: ChoiceDelta): boolean {
    const deltas = delta.tool_calls;
    if (!Array.isArray(deltas) || deltas.length === 0) return false;
    let calls = (this.choices ??= new Map()).get(choiceIndex);
    if (!calls) {
      calls = { clientIndexAt: [], idAt: [], lastIndex: -1, lastId: '', next: 0 };
      this.choices.set(choiceIndex, calls);
    }
    let changed = false;
    for (const t of deltas) {
      const index = t.index;
      const indexed = Number.isInteger(index) && index >= 0;
      const id = typeof t.id === 'string' ? t.id : '';
      let clientIndex = indexed ? calls.clientIndexAt[index] : calls.lastIndex >= 0 ? calls.lastIndex : undefined;
      const currentId = indexed ? (calls.idAt[index] ?? '') : calls.lastId;
      let callId = currentId;
      if (clientIndex === undefined || startsAnotherCall(currentId, t)) {
        clientIndex = calls.next++;
        callId = id;
      } else if (id !== '' && currentId === '') {
        callId = id;
      }
      if (indexed) {
        calls.clientIndexAt[index] = clientIndex;
        calls.idAt[index] = callId;
      }
      calls.lastIndex = clientIndex;
      calls.lastId = callId;
      if (t.index !== clientIndex) {
        t.index = clientIndex;
        changed = true;
      }
    }
    return changed;
  }
}
