#!/usr/bin/env python3
"""The prompt hook's frontier: from the dump an experiment build writes
(LORE_EXP_SWEEP=FILE lore eval --table T --data D), for each vault and each
bar family, the threshold with the best smaller of its two figures (on-topic
answering section sent; off-topic prompts silent, the lowest over the files),
the row "none" (no bar) and the ceiling of any bar over the same ranking.
Usage: hook_frontier.py TABLE.json DUMP.jsonl [full]"""
import json, sys, os, collections
table_path, dump = sys.argv[1], sys.argv[2]
full = len(sys.argv) > 3
base = os.path.dirname(table_path)
t = json.load(open(table_path))
on = {}
for v in t["vaults"]:
    qs = {}
    for s in v["sets"]:
        for l in open(os.path.join(base, s)):
            if l.strip():
                q = json.loads(l); qs[q["query"]] = q["expected"]
    on[v["name"]] = qs
off = [[l.strip() for l in open(os.path.join(base, f)) if l.strip()] for f in t["off_topic"]]
rows = collections.defaultdict(dict)
for l in open(dump):
    r = json.loads(l)
    rows[r["root"]].setdefault((r["bar"], r["tau"]), {})[r["query"]] = r["delivered"]
def hit(m, q, e):
    return any(x[0] + "#" + (x[-1] if len(x) > 1 else "") == e for x in m.get(q, []))
order = [v["name"] for v in t["vaults"]]
res = {}
for root, d in rows.items():
    qs = set(next(iter(d.values())).keys())
    v = max(on, key=lambda v: len(qs & set(on[v])))
    res[v] = {}
    for key, m in d.items():
        a = sum(hit(m, q, e) for q, e in on[v].items()) / len(on[v])
        sil = [sum(1 for q in s if not m.get(q)) / len(s) for s in off]
        res[v][key] = (a, sil)
fams = collections.defaultdict(list)
for v in order:
    for key, (a, sil) in res[v].items():
        fams[key[0]].append(key)
print("| bar | " + " | ".join(order) + " |")
print("|---|" + "---|" * len(order))
def fmt(a, sil):
    return f"{a:.3f} / {min(sil):.3f}"
for fam in sorted(set(k[0] for k in res[order[0]])):
    if fam == "ranked":
        print("| any bar over this ranking (ceiling of answered) | " + " | ".join(f"{res[v][('ranked',0)][0]:.3f}" for v in order) + " |")
        continue
    cells = []
    for v in order:
        pts = [(k, res[v][k]) for k in res[v] if k[0] == fam]
        k, (a, sil) = max(pts, key=lambda p: (min(p[1][0], min(p[1][1])), p[1][0]))
        both = " ✓" if a >= 0.9 and min(sil) >= 0.9 else ""
        cells.append(f"τ {k[1]:g}: {fmt(a, sil)}{both}")
    print(f"| {fam} | " + " | ".join(cells) + " |")
if full:
    for v in order:
        print("##", v)
        for k in sorted(res[v]):
            a, sil = res[v][k]
            print(f"{k[0]:14s} {k[1]:5.2f} answered {a:.3f} silent " + " · ".join(f"{s:.3f}" for s in sil))
