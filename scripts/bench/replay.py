#!/usr/bin/env python3
"""Replays a repository's history for lore stale: at every STEP-th commit of
its first-parent line, the repository's own docs folder is the vault and the
repository at that commit is the code. Prints, per commit, how many notes
cite code, how many citations there are, and which are broken there; then
every distinct broken citation the history held, with the commit that
broke it.

  replay.py LORE_BIN REPO [DOCS [STEP]]      (defaults: docs, 10)

The repository is cloned into a temporary folder; nothing of REPO changes.
"""
import json, os, shutil, subprocess, sys, tempfile

lore, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
docs = sys.argv[3] if len(sys.argv) > 3 else "docs"
step = int(sys.argv[4]) if len(sys.argv) > 4 else 10
tmp = tempfile.mkdtemp(prefix="lore-replay-")
work = os.path.join(tmp, "repo")
env = dict(os.environ, LORE_NO_SERVER="1", XDG_CONFIG_HOME=os.path.join(tmp, "config"))
subprocess.run(["git", "clone", "-q", repo, work], check=True)
commits = subprocess.run(["git", "rev-list", "--first-parent", "--reverse", "HEAD"], cwd=work, capture_output=True,
                         text=True, check=True).stdout.split()
picked = commits[::step] + ([commits[-1]] if (len(commits) - 1) % step else [])
seen = {}
print(f"{len(commits)} commits on the first-parent line; checking {len(picked)} (every {step}th, and the last)")
print("commit   date        notes citing  findings(--all)  broken")
for c in picked:
    subprocess.run(["git", "checkout", "-q", "--force", c], cwd=work, check=True)
    vault = os.path.join(work, docs)
    if not os.path.isdir(vault):
        continue
    with open(os.path.join(vault, "lore.yaml"), "w") as f:
        f.write("embedding: {provider: none}\n")
    p = subprocess.run([lore, "--vault", vault, "stale", "--all", "--json", "--code", work], cwd=work, env=env,
                       capture_output=True, text=True)
    os.remove(os.path.join(vault, "lore.yaml"))
    try:
        r = json.loads(p.stdout)
    except json.JSONDecodeError:
        print(c[:7], "not checked:", (p.stderr or p.stdout).strip()[:200])
        continue
    date = subprocess.run(["git", "log", "-1", "--format=%ad", "--date=short"], cwd=work, capture_output=True,
                          text=True).stdout.strip()
    broken = [f for f in r["findings"] if f["problem"] != "changed"]
    for f in broken:
        seen.setdefault((f["note"], f["cites"], f["problem"]), (c[:7], f.get("commit", "")[:7], f.get("renamed_to", "")))
    print(f"{c[:7]}  {date}  {r['notes_checked']:5d} {r['notes_citing_code']:6d}  {len(r['findings']):15d}  {len(broken):6d}")
print(f"\n{len(seen)} distinct broken citations over the history:")
for (note, cites, problem), (at, by, to) in sorted(seen.items()):
    print(f"  {note}: `{cites}` {problem}{' to ' + to if to else ''} (seen at {at}; broken by {by or '?'})")
shutil.rmtree(tmp)
