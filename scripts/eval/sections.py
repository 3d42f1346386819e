#!/usr/bin/env python3
"""Draw a section at random from each of N notes of a vault, for writing a question set.

usage: python3 scripts/eval/sections.py [--again] [--min-sections M] VAULT SEED N [EXISTING_SET.jsonl ...]

Notes already asked about by the existing sets are skipped (with --again,
only the sections already asked about: for a vault whose notes have all
been asked about once, such as advanced-java after its seventh set), notes with
fewer than M sections that qualify (with --min-sections: to judge the order of
sections inside a note where it acts, not on one-section plugin cards), as are symlinks,
dot-folders, the Hub's footers ("This note in GitHub", "Sponsor this
author", "Follow this author") and sections with fewer than 25 visible words
(comments, HTML, pictures and link targets left out). Each pick is printed as
"===== path#Heading" and the start of its visible text: the question is
written from that text alone, before any search. testdata/hub/questions-6.jsonl
and testdata/eval/adr-examples-2.jsonl are seed 19 (the ADR examples: the
first 15 picks under locales/en/, the MADR template's placeholder heading
skipped).
"""
import glob
import json
import os
import random
import re
import sys

args = sys.argv[1:]
again, min_sections = False, 1
while args and args[0].startswith('--'):
    if args[0] == '--again':
        again, args = True, args[1:]
    elif args[0] == '--min-sections':
        min_sections, args = int(args[1]), args[2:]
    else:
        sys.exit('sections.py: unknown option ' + args[0])
root, seed, n = args[0], int(args[1]), int(args[2])
avoid, asked = set(), set()
for f in args[3:]:
    for l in open(f):
        if not l.strip(): continue
        e = json.loads(l)['expected']
        asked.add(e)
        if not again: avoid.add(e.split('#')[0])
files = sorted(p for p in glob.glob(root+'/**/*.md', recursive=True) if not os.path.islink(p) and '/.' not in p[len(root):])
rng = random.Random(seed)
rng.shuffle(files)
out = 0
for p in files:
    rel = os.path.relpath(p, root)
    if rel in avoid: continue
    text = open(p, encoding='utf-8', errors='replace').read()
    text = re.sub(r'^---\n.*?\n---\n', '', text, flags=re.S)
    secs, cur, fence = [], ['', []], False
    for line in text.split('\n'):
        if line.startswith('```'): fence = not fence
        m = None if fence else re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
        if m:
            secs.append(cur); cur = [m.group(2), []]
        else:
            cur[1].append(line)
    secs.append(cur)
    def vis(lines):
        t='\n'.join(lines)
        t=re.sub(r'%%.*?%%','',t,flags=re.S); t=re.sub(r'<!--.*?(-->|$)','',t,flags=re.S)
        t=re.sub(r'!\[[^\]]*\]\([^)]*\)','',t); t=re.sub(r'<[^>]+>','',t); t=re.sub(r'\]\([^)]*\)',']',t)
        return t
    secs = [(h, vis(b).split('\n')) for h, b in secs if h not in ('This note in GitHub','Sponsor this author','Follow this author')]
    secs = [s for s in secs if len(' '.join(s[1]).split()) >= 25 and rel + '#' + s[0] not in asked]
    if len(secs) < max(min_sections, 1): continue
    h, body = rng.choice(secs)
    out += 1
    print('=====', rel + '#' + h)
    print(re.sub(r'\n\s*\n+', '\n', '\n'.join(body)).strip()[:700])
    if out == n: break
