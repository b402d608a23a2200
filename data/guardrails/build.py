# Assembles the guardrails efficacy set from public sources (see SOURCES.md): one JSONL per split.
# The split is fixed by a hash of the normalised text: tune on train.jsonl only.
import hashlib, json, os, re, subprocess, sys, yaml
# A git snapshot of github.com/Parapet-Tech/parapet (its git directory), as the first argument.
REPO = sys.argv[1] if len(sys.argv) > 1 else 'parapet.git'
OUT = os.path.dirname(os.path.abspath(__file__))
def load(path):
    return yaml.safe_load(subprocess.check_output(['git', '-C', REPO, 'show', 'HEAD:' + path]))
rows = []
def add(text, label, source):
    if isinstance(text, str) and text.strip():
        rows.append({'text': text, 'label': label, 'source': source})
for r in load('schema/eval/opensource_gandalf_attacks.yaml'): add(r['content'], 'jailbreak', 'lakera/gandalf_ignore_instructions')
for r in load('schema/eval/opensource_deepset_attacks.yaml'): add(r['content'], 'jailbreak', 'deepset/prompt-injections')
for r in load('schema/eval/opensource_deepset_benign.yaml'): add(r['content'], 'benign', 'deepset/prompt-injections')
for r in load('schema/eval/opensource_jbb_benign.yaml'): add(r['content'], 'benign', 'JailbreakBench/JBB-Behaviors (benign)')
KEEP_BENIGN = [('no_robots', 'HuggingFaceH4/no_robots'), ('ultrachat', 'HuggingFaceH4/ultrachat'),
  ('Dahoas', 'Dahoas/synthetic-hh-rlhf-prompts'), ('WildGuardMix', 'allenai/wildguardmix (unharmful)'),
  ('teven', 'teven/prompted_examples'), ('NotInject', 'leolee99/NotInject')]
KEEP_ATTACK = [('jailbreak-classification', 'jackhhao/jailbreak-classification'),
  ('ChatGPT-Jailbreak', 'rubend18/ChatGPT-Jailbreak-Prompts'), ('HackAPrompt', 'hackaprompt/hackaprompt-dataset')]
for r in load('schema/eval/l1_holdout.yaml'):
    d = r.get('description', '')
    table = KEEP_BENIGN if r['label'] == 'benign' else KEEP_ATTACK
    for key, name in table:
        if key in d:
            add(r['content'], 'benign' if r['label'] == 'benign' else 'jailbreak', name)
            break
seen, out = set(), {'train': [], 'test': []}
for r in rows:
    norm = re.sub(r'\s+', ' ', r['text'].strip().lower())
    if norm in seen: continue
    seen.add(norm)
    h = hashlib.sha256(norm.encode()).digest()[0]
    out['test' if h < 102 else 'train'].append(r)   # 40% held back
for split, items in out.items():
    with open(os.path.join(OUT, f'{split}.jsonl'), 'w') as f:
        for r in items: f.write(json.dumps(r, ensure_ascii=False) + '\n')
    from collections import Counter
    print(split, len(items), Counter((r['label'], r['source']) for r in items))
