#!/usr/bin/env python3
"""Show the places to judge for the judged reading, and record the verdicts.

usage:
  python3 scripts/eval/places.py show UNJUDGED.jsonl VAULT [FROM [TO]]
  python3 scripts/eval/places.py merge UNJUDGED.jsonl VERDICTS.txt JUDGED.jsonl

UNJUDGED.jsonl is a file `lore eval --table FILE --data DIR --unjudged OUT`
writes (OUT/<vault>.jsonl); VAULT is the vault's unpacked folder.

show prints the places numbered from 0, grouped by question: the question,
its own answer's text (to know what it asks for), and each place's text: a
section's own text up to its next heading, or a note's first lines and its
lines that hold the question's words. It does not say which ranking put a
place there (the file does not know). Judge each under the rule of
docs/decisions/judged-reading.md.

merge reads VERDICTS.txt, one "NUMBER y" or "NUMBER n" a line (a place of
UNJUDGED.jsonl by its number), and appends a judgment for each to
JUDGED.jsonl (testdata/eval/judged/<vault>.jsonl). A number out of range,
a verdict other than y or n, or a place given twice is an error, and
nothing is written.
"""
import json
import os
import re
import sys


def strip_front(text):
    if text.startswith('---\n'):
        end = text.find('\n---', 4)
        if end > 0:
            return text[end + 4:]
    return text


def plain(heading):
    heading = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)
    heading = re.sub(r'\[\[([^\]|]*\|)?([^\]]*)\]\]', r'\2', heading)
    return re.sub(r'[*_`]', '', heading).strip()


def section(text, heading):
    """A section's own text: its heading line up to the next heading."""
    lines = strip_front(text).split('\n')
    if not heading:
        return '\n'.join(lines).split('\n#')[0]
    for i, line in enumerate(lines):
        m = re.match(r'^ {0,3}(#+)\s+(.*?)\s*#*\s*$', line)
        if m and (m.group(2).strip() == heading.strip() or plain(m.group(2)) == plain(heading)):
            out = [line]
            for rest in lines[i + 1:]:
                if re.match(r'^ {0,3}#+\s', rest):
                    break
                out.append(rest)
            return '\n'.join(out)
    return None


def visible(line):
    line = line.strip()
    if not line or line.startswith(('![', '%%', '<span', '<!--')):
        return ''
    return line


def squash(text, n):
    text = re.sub(r'\n\s*\n+', '\n', text).strip()
    return text[:n] + (' …' if len(text) > n else '')


def note_view(text, query, n=700):
    lines = [v for v in (visible(l) for l in strip_front(text).split('\n')) if v]
    words = [w for w in re.findall(r'\w+', query.lower()) if len(w) > 2]
    head = '\n'.join(lines[:6])
    hits = [l for l in lines[6:] if any(w in l.lower() for w in words)][:8]
    out = squash(head, n // 2)
    if hits:
        out += '\n' + squash('\n'.join('…' + h for h in hits), n // 2)
    return out + '\n[%d characters]' % len(text)


def read(root, path):
    try:
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError as e:
        return '<unreadable: %s>' % e


def load(path):
    with open(path, encoding='utf-8') as f:
        return [json.loads(l) for l in f if l.strip()]


def show(unjudged, root, lo=0, hi=None):
    places = load(unjudged)
    last = None
    for k in range(lo, min(hi if hi is not None else len(places), len(places))):
        p = places[k]
        if p['query'] != last:
            path, heading = p['expected'].split('#', 1)
            own = section(read(root, path), heading) or strip_front(read(root, path))
            print('\n##### %s\n  ITS ANSWER %s:\n    %s' % (p['query'], p['expected'], squash(own, 300).replace('\n', '\n    ')))
            last = p['query']
        if p.get('note'):
            print('  [%d] NOTE %s:\n    %s' % (k, p['note'], note_view(read(root, p['note']), p['query']).replace('\n', '\n    ')))
        else:
            path, heading = p['section'].split('#', 1)
            text = section(read(root, path), heading)
            if text is None:
                text = '(heading not found; the note from its start) ' + strip_front(read(root, path))
            print('  [%d] SECTION %s:\n    %s' % (k, p['section'], squash(text, 500).replace('\n', '\n    ')))


def merge(unjudged, verdicts, judged):
    places = load(unjudged)
    given = {}
    with open(verdicts, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in ('y', 'n'):
                sys.exit('%s line %d: want "NUMBER y" or "NUMBER n"' % (verdicts, n))
            k = int(parts[0])
            if k >= len(places):
                sys.exit('%s line %d: no place %d (%d places)' % (verdicts, n, k, len(places)))
            if k in given:
                sys.exit('%s line %d: place %d judged twice' % (verdicts, n, k))
            given[k] = parts[1] == 'y'
    lines = []
    for k in sorted(given):
        p = places[k]
        j = {'query': p['query']}
        if p.get('note'):
            j['note'] = p['note']
        else:
            j['section'] = p['section']
        j['answers'] = given[k]
        lines.append(json.dumps(j, ensure_ascii=False) + '\n')
    with open(judged, 'a', encoding='utf-8') as f:
        f.writelines(lines)
    print('%d judgments appended to %s, %d answering' % (len(lines), judged, sum(given.values())))


def main(args):
    if len(args) >= 3 and args[0] == 'show':
        bounds = [int(a) for a in args[3:5]]
        show(args[1], args[2], *bounds)
    elif len(args) == 4 and args[0] == 'merge':
        merge(args[1], args[2], args[3])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
