// Rebuilds the classifier's labelled corpus (data/classifier/corpus.jsonl) from snapshots of the
// public repositories it comes from, each read with `git show` (no work tree needed):
//
//   npx tsx scripts/classifier/build-corpus.ts [--mirrors DIR]
//
// DIR (default ./mirrors) holds one bare-or-not git directory per source, named `<owner>+<name>/repo` (the layout
// of a `git clone --mirror` under that name also works). Every prompt keeps the category its
// makers gave it; data/classifier/MAPPING.md maps those categories to the gateway's task types,
// and SOURCES below is that table in code. The split into train and test is made here, once,
// with a fixed seed: T0 prompts are split by template (a test template was never seen in
// training, so the model cannot learn a template's wording), the other sources by prompt.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(here, '../../data/classifier/corpus.jsonl');
const argIdx = process.argv.indexOf('--mirrors');
const MIRRORS = argIdx > 0 ? process.argv[argIdx + 1]! : (process.env.MIRRORS ?? 'mirrors');
const SEED = 32;
const TEST_SHARE = 0.25;
/** Longer prompts keep their first 4,000 and last 2,000 characters (instructions sit at either end). */
const MAX_CHARS = 6000;

type Task = 'coding' | 'creative' | 'summarization' | 'qa' | 'general';

export interface CorpusRow {
  id: string;
  source: string;
  sourceCategory: string;
  /** T0: the promptsource template; the unit of the train/test split there. */
  group: string;
  taskType: Task;
  split: 'train' | 'test';
  text: string;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', path.join(MIRRORS, repo, 'repo'), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
}
const show = (repo: string, file: string) => git(repo, 'show', `HEAD:${file}`);

function clip(text: string): string {
  const t = text.replace(/\r\n/g, '\n').trim();
  return t.length <= MAX_CHARS ? t : `${t.slice(0, 4000)}\n…\n${t.slice(-2000)}`;
}

const rows: CorpusRow[] = [];
const seen = new Set<string>();
function add(r: Omit<CorpusRow, 'split' | 'id'> & { split?: 'train' | 'test' }): void {
  const text = clip(r.text);
  if (text.length < 8 || seen.has(text)) return;
  seen.add(text);
  // The id is the prompt's hash: stable whatever else the corpus holds (complexity.jsonl refers to it).
  rows.push({ id: `${r.source}:${hash(text).toString(36)}`, split: r.split ?? 'train', ...r, text });
}
/**
 * Train or test, from a hash of `key` (the prompt, or a T0 template's name): fixed for each key,
 * whatever else the corpus holds, so adding a source never moves a prompt between the parts.
 */
function hash(key: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
}
function splitOf(key: string): 'train' | 'test' {
  return hash(key) / 4294967296 < TEST_SHARE ? 'test' : 'train';
}
/** Split by prompt. */
function addSplitByItem(items: Array<Omit<CorpusRow, 'split' | 'id'>>, take: number): void {
  for (const r of shuffle(items).slice(0, take)) add({ ...r, split: splitOf(r.text) });
}

// --- Stack Overflow question titles (jacoxu/StackOverflow; Kaggle's Stack Overflow dump, CC BY-SA).
// Every title carries the question's tag; all 20 tags are programming tools, so all are coding.
{
  const repo = 'jacoxu+StackOverflow';
  const titles = show(repo, 'rawText/title_StackOverflow.txt').split('\n');
  const labels = show(repo, 'rawText/label_StackOverflow.txt').split('\n');
  const tags = [
    'wordpress',
    'oracle',
    'svn',
    'apache',
    'excel',
    'matlab',
    'visual-studio',
    'cocoa',
    'osx',
    'bash',
    'spring',
    'hibernate',
    'scala',
    'sharepoint',
    'ajax',
    'qt',
    'drupal',
    'linq',
    'haskell',
    'magento',
  ];
  const items = titles
    .map((t, i) => ({ t: t.trim(), l: Number(labels[i]?.trim()) }))
    .filter((x) => x.t.length > 0 && x.l >= 1 && x.l <= 20)
    .map((x) => ({
      source: 'stackoverflow-titles',
      sourceCategory: `tag:${tags[x.l - 1]}`,
      group: `so:${x.l}`,
      taskType: 'coding' as const,
      text: x.t,
    }));
  addSplitByItem(items, 500);
}

// --- GPTeacher (teknium1/GPTeacher, MIT): instructions sorted by their makers into code and role-play sets.
{
  const repo = 'teknium1+GPTeacher';
  const codegen = JSON.parse(show(repo, 'Codegen/codegen-instruct.json')) as Array<{
    instruction: string;
    input: string;
  }>;
  addSplitByItem(
    codegen.map((r) => ({
      source: 'gpteacher',
      sourceCategory: 'Codegen',
      group: 'gpteacher:codegen',
      taskType: 'coding' as const,
      text: r.input ? `${r.instruction}\n\n${r.input}` : r.instruction,
    })),
    350,
  );
  const roleplay = JSON.parse(show(repo, 'Roleplay/roleplay-simple-deduped-roleplay-instruct.json')) as Array<{
    instruction: string;
    input: string;
  }>;
  addSplitByItem(
    roleplay.map((r) => ({
      source: 'gpteacher',
      sourceCategory: 'Roleplay',
      group: 'gpteacher:roleplay',
      taskType: 'creative' as const,
      text: r.input ? `${r.instruction}\n\n${r.input}` : r.instruction,
    })),
    300,
  );
}

// --- WritingPrompts (Fan et al. 2018, r/WritingPrompts), the 600-prompt subset kept in
// AlvinJ404/writingprompts_creativity. Each prompt was posted under the subreddit's story-prompt tag.
{
  const repo = 'AlvinJ404+writingprompts_creativity';
  const prompts: string[] = [];
  for (const file of ['dataset/gpt-4/train/orig/train.csv', 'dataset/gpt-4/test/test.csv']) {
    for (const rec of parseCsv(show(repo, file)).slice(1)) if (rec[1]) prompts.push(rec[1]);
  }
  // A post's tag ([WP], [CW], [IP]...) is its category; [OT] marks the subreddit's off-topic posts
  // (meta threads, questions to the community) and untagged posts have no category: both left out.
  const TAG = /^\s*[[{]\s*([A-Za-z]{2})\s*[\]}]\s*/;
  const stories = prompts.filter((p) => TAG.test(p) && TAG.exec(p)![1]!.toUpperCase() !== 'OT');
  addSplitByItem(
    stories.map((p) => {
      const tag = TAG.exec(p)![1]!.toUpperCase();
      return {
        source: 'writingprompts',
        sourceCategory: `[${tag}]`,
        group: 'writingprompts',
        taskType: 'creative' as const,
        // The subreddit's tag is bookkeeping, not part of the ask: "[ WP ]" would be a giveaway.
        text: p
          .replace(/^\s*\[\s*[A-Za-z]{2}\s*\]\s*/, '')
          .replace(/ ([,.!?;:'])/g, '$1')
          .replace(/<newline>/g, '\n'),
      };
    }),
    600,
  );
}

// --- T0 training mixture (bigscience P3 / promptsource templates), the 50k sample kept in
// yizhongw/self-instruct (Apache-2.0). T0's paper sorts its datasets into task clusters; the cluster
// is the source category. Templates that ask for something other than the dataset's own task
// (promptsource's "original task: false", e.g. writing a story from a summary, generating a
// question from an answer) are left out by name.
{
  const repo = 'yizhongw+self-instruct';
  const dir = 'data/finetuning/t0_train_50k/data_per_template/';
  const files = git(repo, 'ls-tree', '--name-only', 'HEAD', dir)
    .split('\n')
    .filter(Boolean)
    .map((f) => f.slice(dir.length).replace(/\.jsonl$/, ''));
  const clusters: Array<{ cluster: string; task: Task; datasets: string[]; perTemplate: number }> = [
    {
      cluster: 'Summarization',
      task: 'summarization',
      datasets: ['cnn_dailymail', 'gigaword', 'multi_news', 'samsum', 'xsum'],
      perTemplate: 28,
    },
    { cluster: 'Closed-book QA', task: 'qa', datasets: ['kilt_tasks', 'wiki_qa'], perTemplate: 30 },
    {
      cluster: 'Extractive QA',
      task: 'qa',
      datasets: ['adversarial_qa', 'duorc', 'quoref', 'ropes'],
      perTemplate: 6,
    },
    {
      cluster: 'Multiple-choice QA',
      task: 'qa',
      datasets: [
        'commonsense_qa',
        'cosmos_qa',
        'dream',
        'qasc',
        'quarel',
        'quartz',
        'sciq',
        'social_i_qa',
        'wiki_hop',
        'wiqa',
      ],
      perTemplate: 8,
    },
    {
      cluster: 'Sentiment',
      task: 'general',
      datasets: ['amazon_polarity', 'app_reviews', 'imdb', 'rotten_tomatoes', 'yelp_review'],
      perTemplate: 12,
    },
    { cluster: 'Topic classification', task: 'general', datasets: ['ag_news', 'dbpedia_14', 'trec'], perTemplate: 12 },
    {
      cluster: 'Paraphrase identification',
      task: 'general',
      datasets: ['glue_mrpc', 'glue_qqp', 'paws_labeled'],
      perTemplate: 12,
    },
  ];
  // Templates whose ask is not the cluster's task.
  const notOriginal =
    /generate_story|spice_up|write_an_outline|reverse|write_an_article|Write_a_dialogue|expand|generate_question|question_generation|Generate_Question|Topic_Prediction|Guess_Title|Is_This_True|Decide_good_answer|exercise|automatic_system|Jeopardy|generate_review|generate_paraphrase|generate_sentence|Context_Contains_Answer|no_prompt|_id$|title_generation|Guess_Answer|generate_|write_a_question|gen_q|answer_generation_question|make_a_title|first_sentence_title|write_a_title/i;
  for (const c of clusters) {
    const templates = files.filter((f) => c.datasets.some((d) => f.startsWith(`${d}_`)) && !notOriginal.test(f));
    for (const tmpl of templates) {
      const lines = show(repo, `${dir}${tmpl}.jsonl`).split('\n').filter(Boolean);
      const picked = shuffle(lines).slice(0, c.perTemplate);
      for (const l of picked) {
        const { prompt } = JSON.parse(l) as { prompt: string };
        add({
          source: 't0',
          sourceCategory: c.cluster,
          group: `t0:${tmpl}`,
          taskType: c.task,
          split: splitOf(tmpl),
          text: prompt,
        });
      }
    }
  }
}

// --- Self-Instruct's user-oriented instructions (yizhongw/self-instruct, Apache-2.0): 252
// instructions written for the app that motivated them. Apps whose use is one task type map to it;
// the rest (Netflix, Amazon, Spotify...) are left out.
{
  const repo = 'yizhongw+self-instruct';
  const apps: Record<string, Task> = {
    Leetcode: 'coding',
    GeeksforGeeks: 'coding',
    StackOverflow: 'coding',
    Github: 'coding',
    w3schools: 'coding',
    Wikipedia: 'qa',
    'Google Search': 'qa',
    Quora: 'qa',
    'Wolfram alpha': 'qa',
    '(Wolfram alpha)?': 'qa',
    'Socratic by Google': 'qa',
    'National Geographic': 'qa',
    Grammarly: 'general',
    Gmail: 'general',
    LinkedIn: 'general',
    Indeed: 'general',
    Messenger: 'general',
    'ludwig.guru': 'general',
    'MS Word': 'general',
    'Google Docs': 'general',
    Notion: 'general',
    Jira: 'general',
  };
  const items: Array<Omit<CorpusRow, 'split' | 'id'>> = [];
  for (const l of show(repo, 'human_eval/user_oriented_instructions.jsonl').split('\n').filter(Boolean)) {
    const r = JSON.parse(l) as { motivation_app: string; instruction: string; instances: Array<{ input: string }> };
    const task = apps[r.motivation_app];
    if (!task) continue;
    const input = r.instances[0]?.input ?? '';
    items.push({
      source: 'self-instruct-user',
      sourceCategory: `app:${r.motivation_app}`,
      group: `user:${r.motivation_app}`,
      taskType: task,
      text: input ? `${r.instruction}\n\n${input}` : r.instruction,
    });
  }
  addSplitByItem(items, items.length);
}

// --- Natural Questions, open-domain version (google-research-datasets/natural-questions,
// NQ-open dev set; CC BY-SA 3.0): real questions people typed into Google search. All qa.
{
  const repo = 'google-research-datasets+natural-questions';
  const items = show(repo, 'nq_open/NQ-open.dev.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({
      source: 'nq-open',
      sourceCategory: 'open-domain question',
      group: 'nq-open',
      taskType: 'qa' as const,
      text: (JSON.parse(l) as { question: string }).question,
    }));
  addSplitByItem(items, 450);
}

// --- CLINC150 (clinc/oos-eval, CC BY 3.0): requests to a personal assistant, each labelled with
// its intent (and the intent's domain) by the dataset's makers. The intents that are conversation,
// planning or a request to act map to general; those that ask a fact (exchange rates, calories,
// time zones) are qa-like and left out, as are banking, credit cards, device control and the
// account look-ups of the work domain, which are not requests a chat model gets, and the
// small-talk intents that ask for a joke or a fact.
{
  const repo = 'clinc+oos-eval';
  const data = JSON.parse(show(repo, 'data/data_full.json')) as Record<string, Array<[string, string]>>;
  const kept: Record<string, string[]> = {
    small_talk: [
      'greeting',
      'goodbye',
      'thank_you',
      'who_made_you',
      'what_is_your_name',
      'where_are_you_from',
      'what_are_your_hobbies',
      'do_you_have_pets',
      'are_you_a_bot',
      'how_old_are_you',
      'what_can_i_ask_you',
      'who_do_you_work_for',
    ],
    travel: [
      'travel_suggestion',
      'book_flight',
      'book_hotel',
      'car_rental',
      'translate',
      'travel_notification',
      'lost_luggage',
    ],
    kitchen_and_dining: [
      'meal_suggestion',
      'restaurant_suggestion',
      'restaurant_reservation',
      'ingredient_substitution',
      'recipe',
    ],
  };
  const domainOf = new Map<string, string>();
  for (const [d, intents] of Object.entries(kept)) for (const intent of intents) domainOf.set(intent, d);
  const byIntent = new Map<string, string[]>();
  for (const [text, intent] of [...data.train!, ...data.val!, ...data.test!]) {
    if (!domainOf.has(intent)) continue;
    const list = byIntent.get(intent) ?? [];
    list.push(text);
    byIntent.set(intent, list);
  }
  const items: Array<Omit<CorpusRow, 'split' | 'id'>> = [];
  for (const [intent, texts] of byIntent)
    for (const text of shuffle(texts).slice(0, 20))
      items.push({
        source: 'clinc150',
        sourceCategory: `${domainOf.get(intent)}/${intent}`,
        group: `clinc:${intent}`,
        taskType: 'general',
        text,
      });
  addSplitByItem(items, items.length);
}

function parseCsv(s: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      out.push(row);
      row = [];
      field = '';
    } else if (ch !== '\r') field += ch;
  }
  if (field || row.length) {
    row.push(field);
    out.push(row);
  }
  return out;
}

writeFileSync(OUT, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
const tally = new Map<string, { train: number; test: number }>();
for (const r of rows) {
  const k = `${r.taskType}`;
  const t = tally.get(k) ?? { train: 0, test: 0 };
  t[r.split]++;
  tally.set(k, t);
}
console.log(`${rows.length} prompts -> ${path.relative(process.cwd(), OUT)}`);
for (const [k, v] of [...tally].sort()) console.log(`  ${k.padEnd(14)} train ${v.train}  test ${v.test}`);
