#!/usr/bin/env python3
"""Compare two runs of `lore eval --table … --misses`: what a ranking change
moved, set by set, in questions.

    python3 scripts/eval/compare.py BEFORE.txt AFTER.txt

Prints every set whose strict figures moved (note@1, note@3, section@1,
section@3, in questions gained or lost), their sum over the sets, the
judged pooled figures of each vault before and after, the answering
sections that come first in one run and not the other (from --misses), and
the prompt hook's rows that changed.

The sum is over the sets only. A vault of several sets ends with a pooled
row ("**all N sets**"), the same questions again; adding it in would count
every question twice, which is what an earlier ad hoc script did (the
figures of four decision records were doubled until it was found).
"""

import sys

FIGURES = ("note@1", "note@3", "section@1", "section@3")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(path):
    """Returns the strict rows {(vault, set): (n, [questions per figure])},
    the judged rows {vault: [note@1, note@3, section@1]}, the misses
    {(vault, question)} and the hook's figures {vault: [on-topic, off-topic]}."""
    strict, judged, misses, hook = {}, {}, set(), {}
    part = "strict"
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("|"):
                low = line.lower()
                if low.startswith("judged"):
                    part = "judged"
                elif low.startswith("the prompt hook"):
                    part = "hook"
                elif low.startswith("questions whose answering section"):
                    part = "misses"
                elif low.startswith("questions whose first three notes"):
                    part = "judged misses"
                elif low.startswith("held out") or low.startswith("the held-out"):
                    part = "held out"
                continue
            c = cells(line)
            if c[0] in ("vault", "") or set(c[0]) <= set("-"):
                continue
            if part in ("strict", "judged") and len(c) == 7 and c[2].isdigit():
                n = int(c[2])
                lore = [float(x.split("/")[0]) for x in c[3:7]]
                if part == "strict" and not c[1].startswith("**all"):
                    strict[(c[0], c[1])] = (n, [round(x * n) for x in lore])
            elif part == "judged" and len(c) == 6 and c[1].isdigit():
                judged[c[0]] = [float(x.split("/")[0]) for x in c[2:5]]
            elif part == "misses" and len(c) >= 4:
                misses.add((c[0], c[2]))
            elif part == "hook" and len(c) >= 3:
                hook[c[0]] = c[1:3]
    return strict, judged, misses, hook


def signed(x):
    return f"{x:+d}".replace("-", "\u2212") if x else "0"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = []
    for path in sys.argv[1:]:
        try:
            runs.append(parse(path))
        except (OSError, UnicodeDecodeError) as e:
            sys.exit(f"compare.py: {path}: {e}")
    a, b = runs
    for path, run in ((sys.argv[1], a), (sys.argv[2], b)):
        if not run[0]:
            sys.exit(f"{path}: no question set's row; is it the output of lore eval --table?")
    missing = [k for k in a[0] if k not in b[0]] + [k for k in b[0] if k not in a[0]]
    if missing:
        # A run cut short, or tables of different sets: no sum is honest.
        for v, s in missing:
            print(f"{v} {s}: in one run and not the other", file=sys.stderr)
        sys.exit(1)
    total = [0] * 4
    print("| set | " + " | ".join(FIGURES) + " |")
    print("|---" * 5 + "|")
    for key, (n, before) in a[0].items():
        d = [x - y for x, y in zip(b[0][key][1], before)]
        total = [t + x for t, x in zip(total, d)]
        if any(d):
            print(f"| {key[0]} {key[1]} | " + " | ".join(signed(x) for x in d) + " |")
    print(f"| **all {len(a[0])} sets** | " + " | ".join(f"**{signed(x)}**" for x in total) + " |")
    won, lost = a[2] - b[2], b[2] - a[2]
    print(f"\nfirst sections: {len(won)} won, {len(lost)} lost")
    for v in a[1]:
        if v in b[1] and a[1][v] != b[1][v]:
            pairs = ", ".join(f"{x:.3f} \u2192 {y:.3f}" for x, y in zip(a[1][v], b[1][v]))
            print(f"judged {v}: {pairs}")
    for v in a[3]:
        if a[3][v] != b[3].get(v):
            print(f"hook {v}: {' | '.join(a[3][v])} \u2192 {' | '.join(b[3].get(v, []))}")


if __name__ == "__main__":
    main()
