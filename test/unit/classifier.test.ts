import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  classify,
  formatClassification,
  llmClassifierPrompt,
  LOW_CONFIDENCE,
  parseClassification,
  parseLlmClassification,
  type Classification,
} from '../../server/gateway/classifier/index.js';
import { COMPLEXITIES, TASK_TYPES, type Complexity, type TaskType } from '../../server/gateway/types.js';
import type { ChatMessage } from '../../server/providers/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

interface Labelled {
  messages: ChatMessage[];
  taskType: TaskType;
  complexity: Complexity;
}

function load(name: string): Labelled[] {
  return readFileSync(path.join(here, '../fixtures/classifier', name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Labelled);
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const sys = (content: string): ChatMessage => ({ role: 'system', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const withImage = (text: string, url = 'https://example.com/photo.jpg'): ChatMessage => ({
  role: 'user',
  content: [
    { type: 'text', text },
    { type: 'image_url', image_url: { url } },
  ],
});
const task = (...messages: ChatMessage[]) => classify(messages).taskType;
const cx = (...messages: ChatMessage[]) => classify(messages).complexity;

const ARTICLE = [
  'The city council voted 7-2 on Tuesday to approve a plan that adds 62 miles of protected bike lanes over five years,',
  "the largest investment in cycling infrastructure in the city's history. The first phase will focus on three corridors",
  'that together accounted for nearly 40 percent of reported crashes. Supporters described close calls with drivers;',
  'opponents, including several shop owners, argued that removing 340 parking spaces would hurt foot traffic.',
  '\n\nThe funding comes from a federal grant, which covers roughly half the cost, and the capital budget. The director of',
  'transportation said the department will publish quarterly progress reports and hold meetings in each district, and noted',
  'that cities which built connected networks saw cycling trips rise by more than half within a few years.',
  '\n\nCouncilmember Janet Oduya, who voted against the plan, said she supported safer streets but questioned the cost',
  'when the city faces a backlog of road repairs and a pension shortfall. Business owners along the first corridor asked',
  'for loading zones and short-term parking on side streets, and the council added an amendment requiring a study of both',
  'before construction begins next spring. Parents who spoke in favour described children who want to ride to school but',
  'are not allowed to, and several residents said that a lane which ends in the middle of traffic is worse than no lane.',
  '\n\nThe department expects the first phase to take eighteen months. A community meeting is planned at the central',
  'library in March, where residents can comment on the designs for each street and on the order of the later phases.',
].join(' ');

const TRACE = `Traceback (most recent call last):
  File "/srv/etl/run.py", line 88, in <module>
    main()
  File "/srv/etl/transform.py", line 23, in transform
    out.append({"id": r["customer_id"], "total": float(r["amount"])})
KeyError: 'customer_id'`;

describe('classifier: task type', () => {
  it('recognises coding: code, traces, diffs, SQL, regex, shell, how-to', () => {
    expect(task(user('write a python function that checks if a string is a palindrome'))).toBe('coding');
    expect(task(user(`what does this error mean?\n\n${TRACE}`))).toBe('coding');
    expect(
      task(
        user('```diff\n--- a/app.ts\n+++ b/app.ts\n@@ -1,3 +1,3 @@\n-const x = 1;\n+const x = 2;\n```\nreview this'),
      ),
    ).toBe('coding');
    expect(task(user('regex to match an email address'))).toBe('coding');
    expect(
      task(user('why does this throw?\n```ts\nconst m = new Map<string, number>();\nm.get("a")!.toFixed(2);\n```')),
    ).toBe('coding');
    expect(task(user('bash one-liner to find all files larger than 100MB in my home dir'))).toBe('coding');
    expect(task(user('Refactor this to use async/await and add error handling'))).toBe('coding');
  });

  it('recognises creative writing, including poems about code', () => {
    expect(task(user('write a haiku about autumn'))).toBe('creative');
    expect(task(user('Write a poem about Python'))).toBe('creative');
    expect(task(user('give me 10 slogans for a coffee shop called Bean There'))).toBe('creative');
    expect(task(user("Let's role-play. You're a grumpy dwarf blacksmith and I'm a traveler. Stay in character."))).toBe(
      'creative',
    );
    expect(task(user('lyrics for a breakup song, country style'))).toBe('creative');
  });

  it('recognises summarization of pasted text, ask first or last', () => {
    expect(task(user(`Summarize this article:\n\n${ARTICLE}`))).toBe('summarization');
    expect(task(user(`${ARTICLE}\n\ntl;dr?`))).toBe('summarization');
    expect(task(user(`key points please:\n${ARTICLE}`))).toBe('summarization');
    expect(task(user(`${ARTICLE}\n\nsummarize`))).toBe('summarization');
  });

  it('recognises factual questions', () => {
    expect(task(user('what is the capital of australia'))).toBe('qa');
    expect(task(user('who was the first woman to win a Nobel prize?'))).toBe('qa');
    expect(task(user('when did the berlin wall fall'))).toBe('qa');
    expect(task(user('how many bones are in the human body'))).toBe('qa');
    expect(task(user('Explain the difference between a virus and a bacterium'))).toBe('qa');
  });

  it('recognises general requests: small talk, advice, planning, emails', () => {
    expect(task(user('hi'))).toBe('general');
    expect(task(user('thanks that helped a lot!'))).toBe('general');
    expect(task(user('Write a polite email declining a job offer after I accepted another one'))).toBe('general');
    expect(task(user('Plan a 5-day trip to Japan in April, we like food and hiking'))).toBe('general');
    expect(task(user("Translate 'where is the train station' into German"))).toBe('general');
  });

  it('takes any image in a user message as vision, whatever the text says', () => {
    expect(task(withImage('Turn this mockup into a React component with Tailwind'))).toBe('vision');
    expect(task(withImage('Write a poem inspired by this photo'))).toBe('vision');
    expect(task(withImage('what does this chart show?', 'data:image/png;base64,iVBORw0KGgo='))).toBe('vision');
    expect(
      task({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }),
    ).toBe('vision');
    // an image earlier in the conversation still makes it a vision conversation
    expect(
      task(
        withImage('is this mushroom safe to eat?'),
        assistant('I cannot identify it safely.'),
        user('what should I look at then?'),
      ),
    ).toBe('vision');
  });

  it('weighs the latest user turn most, with earlier turns as context', () => {
    const codeChat = [
      user('write a python script that downloads all images from a webpage'),
      assistant(
        '```python\nimport requests\nfrom bs4 import BeautifulSoup\n\ndef download(url):\n    html = requests.get(url).text\n    for img in BeautifulSoup(html, "html.parser").find_all("img"):\n        print(img["src"])\n```',
      ),
    ];
    expect(task(...codeChat, user('make it faster'))).toBe('coding');
    expect(task(...codeChat, user('ok, unrelated: write me a haiku about the sea'))).toBe('creative');
    expect(task(user('who painted the mona lisa'), assistant('Leonardo da Vinci.'), user('when was he born?'))).toBe(
      'qa',
    );
  });

  it('treats the system prompt as a weak hint only', () => {
    const codingSystem =
      sys(`You are a senior software engineer. You write idiomatic, well-tested code in TypeScript, Python, Go and Rust.
Point out security issues (SQL injection, unsafe deserialization, secrets in code) before style issues. Include unit tests
for new functions. Use fenced code blocks with the language name. Explain trade-offs of each API, library and framework.`);
    expect(task(codingSystem, user('write me a short poem about autumn leaves'))).toBe('creative');
    expect(task(codingSystem, user('what is the capital of peru?'))).toBe('qa');
    expect(task(codingSystem, user('How do I read a file line by line in Go?'))).toBe('coding');
    const writingSystem = sys(
      'You are a creative writing partner for a novelist. Keep continuity, avoid cliches, never summarize the plot back unless asked. Write vivid scenes and dialogue.',
    );
    expect(task(writingSystem, user('quick question: how do I undo my last git commit but keep the changes?'))).toBe(
      'coding',
    );
  });
});

describe('classifier: complexity', () => {
  it('rates short single asks simple', () => {
    expect(cx(user('what is the capital of australia'))).toBe('simple');
    expect(cx(user('write a haiku about autumn'))).toBe('simple');
    expect(cx(user('hi'))).toBe('simple');
    expect(cx(user('git undo last commit but keep changes'))).toBe('simple');
  });

  it('rates design, trade-off and many-constraint asks complex', () => {
    expect(
      cx(
        user(
          'Design a rate limiter service for our API gateway: it needs per-tenant token buckets, must work across 12 nodes, survive Redis failover, and add less than 1ms p99. Compare a centralized Redis approach with local buckets, discuss the trade-offs, and give the Lua script.',
        ),
      ),
    ).toBe('complex');
    expect(
      cx(
        user(
          'Plan a 5-day trip to Japan for two people in April, budget around $4000 excluding flights, we like food and hiking but not crowds. Include a day-by-day itinerary, where to stay, and how to get around.',
        ),
      ),
    ).toBe('complex');
    expect(cx(user('Derive the formula for the sum of a geometric series and prove when it converges'))).toBe(
      'complex',
    );
  });

  it('rates moderate asks and pasted material medium', () => {
    expect(cx(user(`what does this error mean?\n\n${TRACE}`))).toBe('medium');
    expect(cx(user(`Summarize this article:\n\n${ARTICLE}`))).toBe('medium');
    expect(
      cx(user('Write a Dockerfile for a Node 20 app using multi-stage build, non-root user, and only production deps')),
    ).toBe('medium');
  });

  it('does not count pasted text as the length of the request', () => {
    // the same article, asked for in one sentence: the article is material, the ask is short
    const oneLine = classify([user(`Summarize this in one sentence:\n${ARTICLE.slice(0, 500)}`)]);
    expect(oneLine.complexity).not.toBe('complex');
  });
});

describe('classifier: confidence', () => {
  const samples: ChatMessage[][] = [
    [user('hi')],
    [user('what is the capital of australia')],
    [user(`Summarize this article:\n\n${ARTICLE}`)],
    [withImage('what is this?')],
    [user('')],
    [user('?')],
    [user('make it better')],
    [sys('You are helpful.'), user('Design a distributed cache, compare trade-offs, and prove its consistency.')],
  ];

  it('keeps both confidences in [0, 1]', () => {
    for (const messages of samples) {
      const c = classify(messages);
      for (const v of [c.taskConfidence, c.complexityConfidence]) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
    }
  });

  it('is confident on clear requests and unsure on empty or vague ones', () => {
    expect(classify([user('write a haiku about autumn')]).taskConfidence).toBeGreaterThan(0.8);
    expect(classify([user(`Summarize this article:\n\n${ARTICLE}`)]).taskConfidence).toBeGreaterThan(0.8);
    expect(classify([withImage('what is this?')]).taskConfidence).toBeGreaterThan(0.9);
    expect(classify([user('')]).taskConfidence).toBeLessThan(LOW_CONFIDENCE);
    expect(classify([]).taskConfidence).toBeLessThan(LOW_CONFIDENCE);
  });

  it('has a documented low-confidence threshold inside (0, 1)', () => {
    expect(LOW_CONFIDENCE).toBeGreaterThan(0);
    expect(LOW_CONFIDENCE).toBeLessThan(1);
  });
});

describe('classifier: robustness', () => {
  it('handles odd and hostile inputs without throwing', () => {
    const odd: ChatMessage[][] = [
      [],
      [user('')],
      [{ role: 'user', content: null }],
      [{ role: 'user', content: [] }],
      [{ role: 'user', content: [{ type: 'input_audio', data: 'xx' }] }],
      [user('\n\n\n\n')],
      [user('```')],
      [user('`'.repeat(5001))],
      [user('a'.repeat(100_000))],
      [user('😀🎉 ünïcödé 漢字 テスト ’quoted’ — dash')],
      [user('{'.repeat(10_000) + ':'.repeat(10_000))],
      [{ role: 'tool', content: '{"ok":true}', tool_call_id: 't1' }],
      [sys('only a system prompt')],
      [assistant('only an assistant turn')],
    ];
    for (const messages of odd) {
      const c = classify(messages);
      expect(TASK_TYPES).toContain(c.taskType);
      expect(COMPLEXITIES).toContain(c.complexity);
    }
  });

  it('carries no state from one call to the next', () => {
    const a = [user(`Summarize this article:\n\n${ARTICLE}`)];
    const b = [user('```python\ndef f(x):\n    return x\n```\nwhy is this slow')];
    const first = classify(a);
    classify(b);
    classify([user('x'.repeat(50_000))]);
    expect(classify(a)).toEqual(first);
  });

  it('reads a huge prompt through head and tail windows', () => {
    const huge = `${'lorem ipsum dolor sit amet. '.repeat(20_000)}\n\nsummarize the above in three bullet points`;
    expect(task(user(huge))).toBe('summarization');
    expect(cx(user(huge))).not.toBe('simple');
  });
});

describe('classifier: eval-target output form', () => {
  it('formats as <taskType>/<complexity> (conf=a/b) with two decimals', () => {
    const c: Classification = {
      taskType: 'coding',
      complexity: 'complex',
      taskConfidence: 0.9123,
      complexityConfidence: 0.775,
    };
    expect(formatClassification(c)).toMatch(/^coding\/complex \(conf=0\.91\/0\.78\)$/);
  });

  it('round-trips every cell', () => {
    for (const taskType of TASK_TYPES) {
      for (const complexity of COMPLEXITIES) {
        const s = formatClassification({ taskType, complexity, taskConfidence: 0.5, complexityConfidence: 1 });
        expect(parseClassification(s)).toEqual({ taskType, complexity });
      }
    }
    const live = classify([user('write a haiku about autumn')]);
    expect(parseClassification(formatClassification(live))).toEqual({
      taskType: live.taskType,
      complexity: live.complexity,
    });
  });

  it('parses an expected label without confidences, and rejects anything else', () => {
    expect(parseClassification('qa/simple')).toEqual({ taskType: 'qa', complexity: 'simple' });
    expect(parseClassification('  vision/medium (conf=0.95/0.61)  ')).toEqual({
      taskType: 'vision',
      complexity: 'medium',
    });
    for (const bad of [
      '',
      'coding',
      'coding/hard',
      'poetry/simple',
      'Coding/Simple',
      'coding/simple (conf=high/low)',
      'coding/simple extra',
      'x coding/simple',
    ]) {
      expect(parseClassification(bad)).toBeUndefined();
    }
  });
});

describe('classifier: LLM fallback', () => {
  it('builds a prompt around the latest user turn, with context, images and long text cut', () => {
    const long = 'word '.repeat(5_000);
    const p = llmClassifierPrompt([
      sys('You are a helpful assistant.'),
      user('write a python script to rename files'),
      assistant('Here it is: ...'),
      withImage(`is this ok? ${long}`),
    ]);
    expect(p.system).toContain('<taskType>/<complexity>');
    for (const t of TASK_TYPES) expect(p.system).toContain(t);
    for (const c of COMPLEXITIES) expect(p.system).toContain(c);
    expect(p.user).toContain('[user, latest (with 1 image)]');
    expect(p.user).toContain('write a python script to rename files');
    expect(p.user).toContain('characters cut');
    expect(p.user.length).toBeLessThan(10_000);
  });

  it('keeps the prompt bounded in a very long chat', () => {
    const chat: ChatMessage[] = [];
    for (let i = 0; i < 200; i++)
      chat.push(i % 2 === 0 ? user(`question ${i} ${'x'.repeat(500)}`) : assistant(`answer ${i} ${'y'.repeat(500)}`));
    chat.push(user('and the last one?'));
    const p = llmClassifierPrompt(chat);
    expect(p.user).toContain('and the last one?');
    expect(p.user).toContain('earlier messages omitted');
    expect(p.user.length).toBeLessThan(10_000);
  });

  it('parses the answer forms models actually give', () => {
    expect(parseLlmClassification('coding/medium')).toEqual({ taskType: 'coding', complexity: 'medium' });
    expect(parseLlmClassification('```\nqa/simple\n```')).toEqual({ taskType: 'qa', complexity: 'simple' });
    expect(parseLlmClassification('Classification: Creative / Complex.')).toEqual({
      taskType: 'creative',
      complexity: 'complex',
    });
    expect(parseLlmClassification('{"taskType": "summarization", "complexity": "medium"}')).toEqual({
      taskType: 'summarization',
      complexity: 'medium',
    });
    expect(parseLlmClassification('{"task_type":"vision","complexity":"simple"}')).toEqual({
      taskType: 'vision',
      complexity: 'simple',
    });
    expect(parseLlmClassification('Task: general\nComplexity: simple')).toEqual({
      taskType: 'general',
      complexity: 'simple',
    });
    expect(parseLlmClassification('summarisation/complex')).toEqual({
      taskType: 'summarization',
      complexity: 'complex',
    });
  });

  it('returns undefined when there is no valid pair', () => {
    for (const bad of [
      '',
      'I am not sure.',
      'coding',
      'coding/hard',
      'poetry/simple',
      '{"taskType":"coding"}',
      'x'.repeat(10_000),
    ]) {
      expect(parseLlmClassification(bad)).toBeUndefined();
    }
  });
});

describe('classifier: accuracy on labelled prompts', () => {
  const corpus = load('corpus.jsonl');
  const holdout = load('holdout.jsonl');

  function accuracy(rows: Labelled[]): { task: number; complexity: number } {
    let t = 0;
    let c = 0;
    for (const r of rows) {
      const out = classify(r.messages);
      if (out.taskType === r.taskType) t++;
      if (out.complexity === r.complexity) c++;
    }
    return { task: t / rows.length, complexity: c / rows.length };
  }

  it('has well-formed fixtures: enough prompts, valid labels, no overlap between the sets', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(holdout.length).toBeGreaterThanOrEqual(60);
    for (const r of [...corpus, ...holdout]) {
      expect(TASK_TYPES).toContain(r.taskType);
      expect(COMPLEXITIES).toContain(r.complexity);
      expect(r.messages.some((m) => m.role === 'user')).toBe(true);
    }
    for (const set of [corpus, holdout]) {
      const types = new Set(set.map((r) => r.taskType));
      expect(types.size).toBe(TASK_TYPES.length);
    }
    const key = (r: Labelled) => JSON.stringify(r.messages);
    const seen = new Set(corpus.map(key));
    for (const r of holdout) expect(seen.has(key(r))).toBe(false);
  });

  // Floors sit a little under the measured figures, so a change that costs accuracy fails here.
  // The task type is measured on the test split of data/classifier (prompts labelled by the data
  // sets' makers, see the next block); these two sets were written beside the old cue lists and
  // stay as a regression check. The tuning corpus's single-turn prompts are in the model's
  // training data; the held-out set is not.
  it('meets the floors on the tuning corpus', () => {
    const a = accuracy(corpus);
    expect(a.task).toBeGreaterThanOrEqual(0.95);
    expect(a.complexity).toBeGreaterThanOrEqual(0.78);
  });

  it('meets the floors on the held-out set', () => {
    const a = accuracy(holdout);
    expect(a.task).toBeGreaterThanOrEqual(0.85);
    expect(a.complexity).toBeGreaterThanOrEqual(0.75);
  });
});

describe('classifier: accuracy on the test split of data/classifier', () => {
  const TASKS = ['coding', 'creative', 'summarization', 'qa', 'general'] as const;
  const rows = readFileSync(path.join(here, '../../data/classifier/corpus.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { taskType: TaskType; split: string; text: string })
    .filter((r) => r.split === 'test');

  it('holds the goals: macro-averaged accuracy of at least 90%, no task type below 80%', () => {
    expect(rows.length).toBeGreaterThanOrEqual(1000);
    const perTask = TASKS.map((t) => {
      const mine = rows.filter((r) => r.taskType === t);
      return mine.filter((r) => classify([user(r.text)]).taskType === t).length / mine.length;
    });
    const macro = perTask.reduce((a, b) => a + b, 0) / TASKS.length;
    expect(macro).toBeGreaterThanOrEqual(0.9);
    for (const a of perTask) expect(a).toBeGreaterThanOrEqual(0.8);
  });
});
