// The classifier's vocabulary: words and short phrases with the evidence they carry.
//
// Phrases are written with single spaces; the scanner splits text the same way (letters, digits,
// `_` and apostrophes make words, anything else separates), so "tl;dr" is written 'tl dr' and
// "trade-offs" 'trade offs'. Phrases have at most three words. Weights are additive evidence,
// not probabilities: a form word such as "haiku" or "summarize" nearly decides on its own, a
// domain word such as "database" only leans. Vision is not here: it is decided by image parts.

/** Task types the text can decide, in score-vector order. */
export const TEXT_TASKS = ['coding', 'creative', 'summarization', 'qa', 'general'] as const;
export const CODING = 0;
export const CREATIVE = 1;
export const SUMMARIZATION = 2;
export const QA = 3;
export const GENERAL = 4;

type Cues = Record<string, number>;

export const CODING_CUES: Cues = {
  // languages, tools and platforms
  python: 2.5, javascript: 2.5, typescript: 2.5, java: 2, golang: 2.5, rust: 1.5, kotlin: 2, swift: 1, php: 2.5,
  ruby: 1, scala: 1.5, haskell: 2, cpp: 2.5, 'c sharp': 2, csharp: 2.5, dotnet: 2.5, sql: 2.5, nosql: 2.5,
  regex: 3, regexp: 3, bash: 2, zsh: 2.5, shell: 1, powershell: 2, git: 2, github: 1.5, gitlab: 2,
  docker: 2.5, dockerfile: 3, compose: 0.3, kubernetes: 2.5, kubectl: 3, k8s: 2.5, helm: 1.5, terraform: 2.5,
  ansible: 2.5, jenkins: 2, npm: 2.5, pip: 1.5, pnpm: 2.5, yarn: 1, webpack: 2.5, vite: 2, babel: 1.5,
  react: 2, vue: 1.5, angular: 1.5, svelte: 2, nextjs: 2.5, 'next js': 2, django: 2.5, flask: 1.5, fastapi: 2.5,
  express: 0.8, nodejs: 2.5, node: 1.2, deno: 2, pandas: 2, numpy: 2.5, matplotlib: 2.5, jupyter: 2,
  pytorch: 2.5, tensorflow: 2.5, sklearn: 2.5, postgres: 2, postgresql: 2.5, mysql: 2.5, sqlite: 2.5,
  mongodb: 2.5, redis: 2, kafka: 2, rabbitmq: 2.5, elasticsearch: 2.5, nginx: 2.5, linux: 1.5, ubuntu: 1.5,
  vim: 2.5, emacs: 2, vscode: 2.5, ide: 1.5, html: 2, css: 2, tailwind: 2.5, div: 2, jsx: 2.5, tsx: 2.5,
  json: 2, yaml: 2, yml: 2.5, xml: 1.5, csv: 1.2, graphql: 2.5, grpc: 2.5, orm: 2, sqlalchemy: 3, alembic: 3,
  prisma: 2.5, laravel: 2.5, rails: 1.2, gradle: 2.5, maven: 2.5, cmake: 2.5, makefile: 2.5, gcc: 2.5,
  pygame: 3, tkinter: 3, excel: 1.5, vba: 3, 'google sheets': 1.5, macro: 1.5, storybook: 2.5, leetcode: 3,
  aws: 1, ec2: 2, s3: 1.5, rds: 2, gcp: 1.5, azure: 1, lambda: 1.5, cloudflare: 1.5, vercel: 2, heroku: 2,
  render: 0.8, js: 2, ts: 1.2, py: 2, sh: 1, venv: 3, conda: 2.5, cargo: 1, rustc: 3, clang: 2.5,
  // programming vocabulary
  code: 1.5, coding: 1.5, program: 0.5, programming: 2, script: 1.5, scripts: 1.5, function: 1.5,
  functions: 1.5, method: 0.8, methods: 0.8, class: 0.6, variable: 1.5, variables: 1.5, array: 2, arrays: 2,
  string: 1, strings: 1, integer: 1.5, int: 2, boolean: 2, bool: 2.5, str: 1.5, char: 1.5, float: 1.2,
  null: 2, undefined: 2, nil: 1.5, async: 2.5, await: 2.5, promise: 0.8, promises: 1, callback: 2,
  callbacks: 2, loop: 1, loops: 1, recursion: 2, recursive: 1.5, iterator: 2, iterators: 2, closure: 1.5,
  closures: 2, const: 2.5, var: 2, def: 2, struct: 2, enum: 2, tuple: 2, dict: 2, hashmap: 2.5,
  'linked list': 2.5, 'binary tree': 2, 'hash table': 2.5, pointer: 2, pointers: 2, malloc: 3, heap: 1.2,
  heapify: 3, generics: 2, typeof: 3, instanceof: 3, println: 3, printf: 3, console: 1.2,
  stdout: 3, stderr: 3, stdin: 3, std: 2, cout: 3, vector: 1.2, mutable: 2, immutable: 2, borrow: 0.8,
  syntax: 1.5, compile: 2, compiler: 2, compiling: 2, compiles: 2, runtime: 1.5, debug: 2, debugging: 1.5,
  debugger: 2, bug: 1.5, bugs: 1.5, buggy: 1.5, refactor: 3, refactoring: 3, implement: 1.5,
  implementation: 1.5, deploy: 1.5, deployed: 1.5, deployment: 1.5, deploys: 1.5, repo: 2, repository: 1,
  monorepo: 3, commit: 1.8, commits: 1.8, 'pull request': 2.5, merge: 1, rebase: 2.5, branch: 0.8,
  diff: 1.5, stacktrace: 3, traceback: 3, 'stack trace': 3, exception: 2, exceptions: 2, error: 1.2,
  errors: 1, segfault: 3, 'segmentation fault': 2, crash: 1, crashes: 1.2, crashing: 1.2, throws: 2,
  throw: 1.5, thrown: 1.5, typeerror: 3, keyerror: 3, valueerror: 3, syntaxerror: 3, referenceerror: 3,
  nullpointerexception: 3, panics: 1.5, panic: 0.5, deadlock: 2.5, deadlocks: 2.5, 'race condition': 2.5,
  mutex: 2.5, goroutine: 3, goroutines: 3, concurrency: 1.5, concurrent: 1.5, 'thread safe': 2.5,
  localhost: 2.5, backend: 2, frontend: 2, server: 1, servers: 1, database: 1.5, databases: 1.5, db: 1.5,
  query: 1, queries: 1, schema: 1.5, migration: 1.2, migrations: 2, 'materialized view': 2.5, index: 0.5,
  indexes: 1, cache: 1.5, caching: 1.2, api: 1.5, apis: 1.5, endpoint: 1.5, endpoints: 1.5, 'rest api': 1,
  microservice: 2.5, microservices: 2.5, ci: 1.5, cli: 2, sdk: 2, framework: 1, library: 0.5,
  algorithm: 2, algorithms: 2, 'time complexity': 2.5, 'big o': 2.5, 'unit test': 2.5, 'unit tests': 2.5,
  pytest: 3, jest: 3, unittest: 3, lint: 2, linter: 2, eslint: 3, prettier: 1.5, component: 1.5,
  components: 1.5, props: 2, hooks: 1.5, usestate: 3, useeffect: 3, dom: 2, browser: 1, website: 1,
  webpage: 1.5, scraper: 2, scrape: 2, crawler: 2, parse: 1.5, parser: 2, parsing: 1.5, serialize: 2,
  deserialize: 2, dependency: 1.5, dependencies: 1.5, install: 1, config: 1.5, env: 1.5, cors: 3, csrf: 3,
  xss: 3, jwt: 3, oauth: 2, injection: 1.5, vulnerable: 1, vulnerability: 1.2, webhook: 2, websocket: 3,
  localstorage: 3, fetch: 1, ajax: 3, http: 1, 'http request': 1.5, port: 1, ports: 1, dns: 1, ssl: 1.5,
  tls: 1.5, ssh: 2, sudo: 3, chmod: 3, grep: 2.5, sed: 2, awk: 2, curl: 2.5, cron: 2, crontab: 3,
  terminal: 1.5, command: 1, commands: 1, 'command line': 2, cmd: 2, args: 2.5, kwargs: 3, argument: 1,
  arguments: 1, parameter: 1, parameters: 1, param: 2, container: 1.2, containers: 1.5, pod: 1.2, pods: 2,
  readiness: 2, etl: 2, pipeline: 0.8, debounce: 2.5, memoize: 2.5, 'o n': 1.5, oop: 2.5, polymorphism: 2.5,
  inheritance: 1, crud: 3, 'dependency injection': 2, transpile: 3, polyfill: 3, bundler: 2.5, minify: 2.5,
  regexes: 2.5, 'permission denied': 1.5, directory: 1.5, filenames: 1.2, filename: 1.2, 'source code': 2,
  snippet: 2, codebase: 3, binary: 0.8, bytes: 1.2, unicode: 1.5, utf: 1.5, encoding: 0.8, formula: 0.8,
  spreadsheet: 0.3, 'apps script': 1, app: 0.3, apps: 0.3, 'web app': 1.5, 'todo app': 2,
  'event sourced': 2.5, 'event sourcing': 2.5, partitioning: 1.5, sharding: 2, idempotency: 1.5,
  idempotent: 1.5, architect: 1, architecture: 1.2, middleware: 2.5, 'access control': 1.5, rbac: 2.5,
  token: 0.8, tokens: 0.8, cookie: 1, cookies: 1, httponly: 3,
  'a file': 1, 'line by line': 1.5, 'in go': 2, 'in rust': 2, 'in java': 1, 'in c': 1.5, 'in bash': 1,
};

export const CREATIVE_CUES: Cues = {
  poem: 4, poems: 4, poetry: 4, poet: 2, haiku: 4, haikus: 4, limerick: 4, limericks: 4, sonnet: 4,
  sonnets: 4, villanelle: 4, ode: 3.5, ballad: 3, verse: 2.5, verses: 2.5, stanza: 3, stanzas: 3,
  rhyme: 2.5, rhymes: 2.5, rhyming: 3, lyrics: 4, song: 2.5, songs: 2, lullaby: 3, jingle: 3, rap: 2,
  chorus: 2, story: 3, stories: 3, 'time travel': 1, storytelling: 2.5, fiction: 3, fictional: 3, fanfic: 4,
  fanfiction: 4, 'fan fiction': 2, novel: 2, novella: 3, chapter: 1.5, chapters: 1.2, scene: 2,
  screenplay: 4, dialogue: 1.2, monologue: 3, character: 1.5, characters: 1.2, protagonist: 3, villain: 2.5,
  plot: 2, plots: 2, twist: 1.5, cliffhanger: 3, narrator: 2.5, narrated: 2.5, narrative: 1.5,
  'role play': 4, roleplay: 4, 'in character': 3, 'pretend you': 2, 'pretend to': 1.5, imagine: 1,
  fable: 3.5, fairy: 2, tale: 2.5, tales: 2.5, myth: 1.5, bedtime: 2, 'once upon': 3, slogan: 4, slogans: 4,
  tagline: 4, taglines: 4, catchphrase: 3, motto: 3, joke: 3.5, jokes: 3.5, pun: 3.5, puns: 3.5,
  riddle: 3, insult: 2.5, roast: 2.5, toast: 3, eulogy: 2, caption: 2.5, captions: 2.5,
  'product description': 2, worldbuilding: 4, 'world building': 4, 'd d': 3, dnd: 3, 'one shot': 1.5,
  adventure: 1.5, quest: 1.5, fantasy: 2, 'sci fi': 2.5, scifi: 2.5, dystopian: 2.5, creative: 2,
  whimsical: 2.5, 'in the style': 2.5, 'the style of': 0.5, 'love letter': 3, 'from the perspective': 2,
  'first person': 2, 'present tense': 1.5, metaphor: 2, metaphors: 2, prose: 2, 'flash fiction': 3,
  'name ideas': 2.5, 'names for': 1.5, invent: 1.5, dwarf: 1, dragon: 1.5, wizard: 1.5, pirate: 1.5,
  tavern: 2, knight: 1, detective: 1.5, noir: 2.5, shakespearean: 2.5, shakespeare: 1.5, villains: 2,
  'short story': 1, 'a story': 0.5, speech: 1, vows: 2, 'wedding toast': 1, 'tour guide': 1.5,
  comedy: 1.5, sketch: 0.8, horror: 2, mystery: 1.2, romance: 2, romantic: 1.2, spooky: 2, funny: 1.2,
  humorous: 1.5, 'fun fact': -0.5, 'write me a': 0.5, 'make it rhyme': 2, 'stay in': 1,
  'you are a': 0.5, 'opening line': 2, 'opening scene': 2, plotline: 3, backstory: 2.5,
  'six word': 2,
};

export const SUMMARIZATION_CUES: Cues = {
  summarize: 5, summarise: 5, summarizing: 5, summarising: 5, summarized: 4, summary: 4, summaries: 4,
  summarization: 5, 'tl dr': 5, tldr: 5, 'key points': 3.5, 'main points': 3.5, 'key takeaways': 3.5,
  takeaways: 2.5, gist: 4, condense: 4.5, condensed: 3, recap: 4, 'sum up': 4.5, 'sum it up': 4.5,
  'in a nutshell': 3, 'boil down': 3.5, 'boil it down': 3.5, overview: 1.5, highlights: 2, shorten: 3,
  synopsis: 4, shorter: 1, digest: 1.5, paraphrase: 1.5, 'bullet points': 1.5, 'bullet point': 1.5, bullets: 1,
  'this article': 2, 'the article': 1.5, 'these articles': 2, article: 1, articles: 1, 'this text': 1.5,
  'this document': 1.5, 'this paper': 1.5, 'this report': 1.5, 'this email': 0.8, 'this thread': 1.5,
  'this transcript': 2, transcript: 1.5, 'meeting notes': 1.5, 'action items': 1.5, 'main ideas': 3,
  'is this about': 2.5, "what's this about": 3, 'what it says': 1.5, recapping: 3, 'status update': 1,
  'executive brief': 3, 'brief for': 1, 'one paragraph': 1, 'in one sentence': 1.5, 'in 2 sentences': 1,
  'in two sentences': 1, 'in 3 lines': 1,
};

// Question openers count in full only at the start of a sentence (see FLAG_START in the scanner);
// "what is" in "tell me what is wrong with this" is not a factual question.
export const QA_START_CUES: Cues = {
  'what is': 2.5, 'what are': 2, 'what was': 2.5, 'what were': 2.5, "what's": 2, 'what does': 1.5,
  'what did': 2, 'what year': 3, 'what causes': 2.5, 'what caused': 2.5, 'who is': 3, 'who was': 3.5,
  'who were': 3, 'who wrote': 3.5, 'who invented': 3.5, 'who painted': 3.5, 'who discovered': 3.5,
  'who founded': 3.5, 'who won': 3.5, "who's": 2.5, 'when did': 3.5, 'when was': 3.5, 'when is': 2,
  'when were': 3.5, 'where is': 2.5, 'where was': 3, 'where are': 2, 'where did': 3, 'how many': 3,
  'how much': 1.5, 'how tall': 3.5, 'how old': 3, 'how far': 3, 'how long': 2, 'how big': 3, 'how high': 3,
  'how deep': 3, 'how does': 2.5, 'how do': 0.8, 'how did': 2.5, 'how is': 2, 'how are': 1.5,
  'why is': 3, 'why are': 3, 'why do': 2.5, 'why does': 2.5, 'why did': 3, 'why was': 3, 'why were': 3,
  which: 1.5, 'is it true': 3, 'is there': 1, 'are there': 1, 'how come': 2, 'what happens': 2,
  'what happened': 2.5, 'explain how': 1.5, 'explain why': 1.5, 'explain what': 1.5, 'tell me about': 1.5,
  define: 2, 'can you explain': 1,
};

export const QA_CUES: Cues = {
  explain: 1.5, explanation: 1, 'difference between': 2.5, 'differences between': 2.5, definition: 2.5,
  'meaning of': 2.5, 'stand for': 2.5, 'capital of': 3, population: 2, history: 1, historians: 2,
  historical: 1.5, century: 1.5, invented: 2, discovered: 1.5, fact: 1, facts: 1, 'true that': 1,
  causes: 1, caused: 1.5, planet: 1.5, planets: 1.5, moon: 1, moons: 1.5, ocean: 1, mountain: 1,
  country: 1, countries: 1.5, president: 1.5, war: 1.5, wars: 1.5, nobel: 2, scientist: 1, scientists: 1,
  theory: 1.5, physics: 1.5, chemistry: 1.5, biology: 1.5, economics: 1.5, inflation: 1.5, gdp: 2,
  vaccine: 1.5, vaccines: 1.5, virus: 1, bacteria: 1.5, bacterium: 1.5, dna: 1.5, photosynthesis: 2.5,
  evolution: 1.5, atom: 2, atoms: 2, molecule: 2, gravity: 2, universe: 1, boiling: 1.5, equation: 1.5,
  theorem: 2.5, derive: 1.5, calculate: 1, percent: 1, law: 1, laws: 1, constitution: 2, election: 1.5,
  electoral: 2, democracy: 2, republic: 1.5, government: 1, philosophy: 1.5, buddhism: 2, christianity: 2,
  islam: 2, judaism: 2, hinduism: 2, ancient: 1.5, medieval: 1.5, revolution: 1, dynasty: 2, born: 1.5,
  died: 1, tallest: 2.5, largest: 2.5, biggest: 2, smallest: 2.5, longest: 2, oldest: 2, highest: 1.5,
  capital: 1.5, meaning: 1.5, synonym: 2, etymology: 3, eli5: 2, "like i'm five": 2, 'like im five': 2,
  species: 1.5, mammal: 1.5, mammals: 1.5, climate: 1, weather: 0.5,
  earth: 1, sun: 0.8, 'speed of light': 2, temperature: 0.5, altitude: 1, miles: 0.5, feet: 0.5,
  kilometers: 0.5, bones: 1, brain: 1, body: 0.5, disease: 1, diseases: 1, immune: 1.5, immunity: 1.5,
  enthalpy: 2.5, entropy: 2, quantum: 2, relativity: 2.5, economy: 0.5, 'interest rates': 1.5,
  'central bank': 1.5, 'central banks': 1.5, stocks: 1, bonds: 1, 'financial crisis': 1.5, purr: 1.5,
  empire: 0.5, 'secretary general': 2, un: 0.5, eu: 1, 'european union': 1.5, titanic: 2,
};

export const GENERAL_CUES: Cues = {
  hi: 3, hello: 3, hey: 2, yo: 1.5, thanks: 3, thank: 2.5, thx: 3, ok: 2, okay: 2, cool: 1, awesome: 1,
  'email address': -1.5, 'good morning': 3, 'good night': 3, 'good evening': 3, 'how are you': 3, "how's it going": 3, 'it going': 1.5,
  lol: 2, bye: 3, 'nice to meet': 2,
  email: 2, emails: 2, letter: 1.5, message: 1.5, reply: 1, respond: 1, 'cover letter': 2, resume: 2.5,
  cv: 2, linkedin: 2.5, job: 1.5, jobs: 1, interview: 2, manager: 1.5, boss: 1.5, coworker: 1.2,
  coworkers: 1.2, colleague: 1.5, colleagues: 1.5, salary: 2, raise: 1, career: 2, quit: 1.5, quitting: 2,
  resign: 2, resignation: 2.5, promotion: 1.5, meeting: 1, agenda: 2.5, schedule: 1.5, plan: 1.5,
  planning: 1.5, itinerary: 3, trip: 2.5, travel: 2.5, vacation: 2.5, holiday: 2, hotel: 2, flight: 1.5,
  flights: 1.5, visit: 1, packing: 2.5, budget: 1.5, budgeting: 2.5, money: 1, savings: 1, invest: 1.5,
  investing: 1.5, mortgage: 1.5, landlord: 2, roommate: 2.5, neighbor: 2, neighbour: 2, neighbors: 2,
  friend: 1, friends: 1, family: 1, mom: 1, dad: 1, mother: 0.5, father: 0.5, sister: 1, brother: 0.5,
  wife: 0.5, husband: 0.5, girlfriend: 1.5, boyfriend: 1.5, partner: 0.5, relationship: 2, kids: 0.5, kid: 0.5,
  son: 0.5, daughter: 0.5, parents: 0.5, baby: 0.5, wedding: 1, birthday: 1, gift: 2.5, gifts: 2.5, party: 1.5,
  recipe: 2, recipes: 2, cook: 2, cooking: 2, dinner: 2, lunch: 1.5, breakfast: 1.5, meal: 2, meals: 2,
  'meal prep': 1.5, menu: 1.5, 'shopping list': 2.5, grocery: 1.5, groceries: 1.5, diet: 2, calories: 2,
  protein: 1.5, workout: 3, exercise: 2, gym: 1.5, fitness: 2.5, running: 0.5, weight: 1, sleep: 0.5,
  tips: 2, advice: 2.5, advise: 2, suggestions: 1.5, suggest: 1, recommend: 1.5, recommendation: 1.5,
  'should i': 1.5, 'help me': 1, decide: 1.5, decision: 1, choose: 1, productive: 2, productivity: 2,
  motivation: 1, motivated: 1, burnout: 2, 'burned out': 2, stress: 1.5, stressed: 2, anxious: 2,
  anxiety: 1.5, feel: 1, feeling: 1.5, sad: 1.5, lonely: 2, translate: 3, translation: 3, german: 1,
  french: 1, spanish: 0.5, italian: 1, portuguese: 1, japanese: 0.5, proofread: 3, proofreading: 3,
  grammar: 2, rephrase: 2.5, reword: 2.5, rewrite: 1, professional: 1.5, formal: 1.5, polite: 2,
  politely: 2, reminder: 2.5, remind: 2.5, 'to do list': 2.5, 'to do': 1, checklist: 1.5, organize: 1.5,
  organizing: 1.5, offsite: 2, event: 1, venue: 2, logistics: 1.5, 'study plan': 2, study: 1, exam: 1.5,
  opinion: 2, 'do you think': 2, 'any tips': 1, 'what should i': 2, 'what should': 1, house: 1,
  garden: 1.5, car: 1, buy: 1, buying: 1.5, shoes: 1.5, clothes: 1.5, outfit: 2, doctor: 1, pet: 1,
  announce: 1.5, announcing: 1.5, announcement: 1.5, congratulate: 2, apologize: 2, apology: 2,
  complaint: 2, complain: 1.5, refund: 2, charged: 1.5, booking: 1.5, appointment: 2.5,
  'how can i': 1, 'can you help': 0.5, 'help me write': 1, 'write an email': 1,
  'post': 0.5, 'moving': 1, 'move house': 1.5, chores: 2, dishes: 1.5, hobby: 1.5, hobbies: 1.5,
  weekend: 1, tonight: 1, tomorrow: 0.5, team: 0.3, onboarding: 1, 'knowledge base': 1, week: 0.5,
  shopping: 1.5, 'time travel': -2.5, routine: 1.5, habits: 1.5, habit: 1.5, negotiate: 1.5, 'job offer': 1, 'job offers': 1,
};

// Complexity evidence, counted only in the request itself (not in pasted material), in two kinds.
//
// The kind of ask: design, proof, optimization, comparison of trade-offs. These make a request
// complex however short it is ("prove that heapify is O(n)").
export const HARD_ASK_CUES: Cues = {
  design: 1.2, architect: 2.5, architecture: 1.5, 'system design': 1, scalable: 1.5, scaling: 1,
  distributed: 1.2, 'trade offs': 2, tradeoffs: 2, 'pros and cons': 1.5, compare: 1.2, comparison: 1.2,
  evaluate: 1.2, assess: 1.2, analyze: 1, analyse: 1, analysis: 1, prove: 2, proof: 2, derive: 1.5,
  optimize: 1, optimise: 1, optimization: 1, 'production ready': 1, comprehensive: 1.5, 'in depth': 1.5,
  thorough: 1, strategy: 1.2, roadmap: 1.2, implications: 1.2, 'edge cases': 1, pitfalls: 1,
  idempotency: 1.5, failover: 1.5, 'high availability': 1.5, throughput: 0.8, justify: 1, propose: 1,
  'walk through': 0.8, estimate: 0.8, worldbuilding: 1, 'day by day': 0.8, itinerary: 0.6,
};

// The shape of the ask: connectives and constraint words that add parts, explanation asks, style
// constraints (up), and asks for brevity or a light edit (down).
export const COMPLEXITY_CUES: Cues = {
  scale: 0.6, versus: 0.4, production: 0.8, robust: 0.8, detailed: 0.8, 'step by step': 0.6,
  consistency: 0.6, discuss: 0.8, outline: 0.6, timeline: 0.4, structure: 0.4, table: 0.4, each: 0.5,
  every: 0.2, multiple: 0.5, 'as well as': 0.5, additionally: 0.5, also: 0.4, then: 0.4, finally: 0.5,
  'make sure': 0.5, ensure: 0.6, must: 0.6, handle: 0.6, handles: 0.6, handling: 0.6, include: 0.5,
  including: 0.3, without: 0.3, 'at least': 0.5, 'no more than': 0.5, avoid: 0.3, constraints: 1,
  requirements: 1, tests: 0.6, test: 0.2, and: 0.25, explain: 0.8, 'difference between': 0.8,
  'differences between': 1, 'how does': 1, example: 0.5, plan: 0.3, recommend: 0.3,
  'in the style': 1, 'in the voice': 1, sonnet: 0.8, villanelle: 0.8, 'how do': 0.4, causes: 0.5,
  proofread: -1, rewrite: -0.5, rephrase: -0.8, translate: -0.5,
  quick: -1, quickly: -0.8, simple: -0.6, short: -0.5, shorter: -0.8, brief: -0.6, briefly: -0.6,
  'one sentence': -1.5, 'one line': -1.5, 'one liner': -1.5, oneliner: -1.5, 'one word': -1.5,
  'in a word': -1.5, just: -0.4, 'yes or no': -1.5, tldr: -0.3, 'tl dr': -0.3,
};

/** Words that, first on a line, mark code (value: how strongly). Weak ones also open prose lines. */
export const LINE_START_KEYWORDS: Cues = {
  def: 1.5, import: 1.2, const: 1.5, var: 1.2, func: 1.5, fn: 1.5, elif: 1.5, package: 0.8,
  class: 0.8, public: 0.8, private: 0.8, return: 0.8, if: 0.5, for: 0.4, while: 0.6, let: 0.4,
  from: 0.4, select: 0.8, insert: 0.6, update: 0.4, delete: 0.4, where: 0.4, join: 0.6, try: 0.5,
  catch: 0.8, except: 0.6, else: 0.6, async: 1, await: 1, export: 0.8, struct: 1.5, impl: 1.5,
  include: 0.5, echo: 0.8, cd: 1, npm: 1.5, git: 1.2, pip: 1.2, docker: 1, kubectl: 1.5, sudo: 1.5,
};

/** File extensions of code and config: `name.ext` is evidence, `name.ext:12` more so. */
export const CODE_EXTENSIONS = [
  'js', 'jsx', 'ts', 'tsx', 'mjs', 'cjs', 'py', 'java', 'kt', 'go', 'rs', 'rb', 'php', 'cs', 'cpp', 'cc',
  'hpp', 'swift', 'scala', 'sh', 'bash', 'zsh', 'ps1', 'sql', 'json', 'yaml', 'yml', 'toml', 'ini', 'xml',
  'html', 'css', 'scss', 'vue', 'svelte', 'lua', 'dart', 'ex', 'exs', 'hs', 'tf', 'gradle', 'env', 'cfg',
  'conf', 'log', 'txt', 'md', 'ipynb', 'dll', 'so', 'exe', 'jar', 'lock',
];

/**
 * Words that mark a paragraph as a request rather than pasted material: imperatives and
 * politeness aimed at the assistant. Pasted articles and transcripts rarely contain them.
 */
export const REQUEST_CUES = [
  'please', 'pls', 'plz', 'can you', 'could you', 'would you', 'can u', 'give me', 'tell me', 'help me',
  'show me', 'i need', 'i want', "i'd like", 'for me', 'summarize', 'summarise', 'summary', 'tl dr',
  'tldr', 'key points', 'main points', 'gist', 'condense', 'recap', 'sum up', 'takeaways', 'translate',
  'proofread', 'rewrite', 'rephrase', 'explain', 'fix', 'debug', 'convert', 'write a', 'write an',
  'write me', 'draft', 'compose', 'generate', 'suggest', 'recommend', 'compare', 'review', 'extract',
  'describe', 'turn this', 'turn these', 'make it', 'make this', 'the following', "here's", 'here is',
  'here are', 'this article', 'this text', 'this document', 'what does this', 'any idea', 'any ideas',
  'why does', 'why is', 'refactor', 'implement', 'build', 'design', 'create', 'optimize', 'improve',
  'migrate', 'how do i', 'how can i', 'how to', "what's wrong", 'what is wrong', 'anything wrong', 'is this',
];

/** Words of failure output: a request carrying one is debugging, which takes some reading. */
export const ERROR_WORDS = [
  'error', 'errors', 'err', 'exception', 'traceback', 'stacktrace', 'stack trace', 'segfault', 'panic',
  'panicked', 'typeerror', 'keyerror', 'valueerror', 'syntaxerror', 'referenceerror', 'nullpointerexception',
  'fatal', 'failed', 'crashloopbackoff', 'eaddrinuse', 'econnrefused', 'enoent', 'undefined reference',
];
