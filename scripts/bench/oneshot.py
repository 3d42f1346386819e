#!/usr/bin/env python3
"""Whole-process timings on one vault, in alternating rounds: `lore search`
and `lore activate` with a warm `lore mcp --http` running and without one
(LORE_NO_SERVER=1), `lore version` (process start alone), and a plain
SQLite FTS5 search in Python (fts5_baseline.py, indexed first).

  oneshot.py LORE_BIN[,LORE_BIN2,...] VAULT [ROUNDS]

With several binaries (comma-separated), each round runs every case with
each of them in turn (in a rotating order), so a machine whose speed drifts
moves every column alike; the first binary is the warm server that every
client asks. Build each binary with `go build -o` where it runs: on one
machine a copy made with `cp` started ~4 ms slower than the linker's file.

VAULT is a vault such as `lore bench -n 10000 -dir VAULT` keeps. The server
runs with LORE_MCP_NO_EMBED=1, so it does not spend the run embedding: both
sides rank with the unit vectors the index already holds (`lore index`
embeds them; `lore bench` leaves none), and the query is embedded either way
when the built-in model is installed. The first line of output says how many
units have a vector, so a figure is never read as the other kind.

With QMD set to a qmd command (e.g. "env XDG_CACHE_HOME=D node_modules/.bin/qmd";
the variables go to qmd alone) whose index
already holds VAULT as a collection (`qmd collection add VAULT --name bench`,
`qmd update`), `qmd search` (its BM25, no model) is timed in the same rounds.
"""
import json, os, shlex, sqlite3, statistics, subprocess, sys, tempfile, time

bins, vault = sys.argv[1].split(","), os.path.abspath(sys.argv[2])
lore = bins[0]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 21
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, LORE_VAULT=vault, LORE_PROJECT="")
info = os.path.join(vault, ".git", "lore", "mcp-http.json")

db = os.path.join(tempfile.mkdtemp(), "fts5.db")
subprocess.run([sys.executable, os.path.join(here, "fts5_baseline.py"), "index", vault, db], check=True)
subprocess.run([lore, "index", "--no-embed"], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with sqlite3.connect("file:%s?mode=ro" % os.path.join(vault, ".git", "lore", "index.db"), uri=True) as con:
    units = con.execute("SELECT count(*) FROM units").fetchone()[0]
    vectors = con.execute("SELECT count(*) FROM units WHERE embed_hash IN (SELECT embed_hash FROM embeddings)").fetchone()[0]
print("%s: %d units, %d with a vector" % (vault, units, vectors))

server = subprocess.Popen([lore, "mcp", "--http", "127.0.0.1:0"], env=dict(env, LORE_MCP_NO_EMBED="1", LORE_MCP_NO_SYNC="1"),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(400):
    if os.path.exists(info):
        break
    time.sleep(0.05)
time.sleep(3)  # the server builds its in-memory copies after it starts listening

queries = ["retry budget sync", "deploy the service to staging", "cache invalidation after writes", "并发 控制",
           "parseConfigFile defaults", "why did the backup job fail", "rate limit per token"]
cases = {
    "lore version (process start)": lambda b, q: [b, "version"],
    "lore search, warm server": lambda b, q: [b, "search", q],
    "lore search, no server": lambda b, q: [b, "search", q],
    "lore activate, warm server": lambda b, q: [b, "activate", q],
    "lore activate, no server": lambda b, q: [b, "activate", q],
    "python3 + plain FTS5": lambda b, q: [sys.executable, os.path.join(here, "fts5_baseline.py"), "search", db, q],
}
if os.environ.get("QMD"):
    qmd = shlex.split(os.environ["QMD"])
    cases["qmd search (BM25)"] = lambda b, q: qmd + ["search", q]
lore_case = lambda name: name.startswith("lore ")
times = {(k, b): [] for k in cases for b in (bins if lore_case(k) else bins[:1])}
try:
    for r in range(rounds):
        for name, argv in cases.items():
            e = dict(env, LORE_NO_SERVER="1") if "no server" in name else env
            order = bins[r % len(bins):] + bins[:r % len(bins)] if lore_case(name) else bins[:1]
            for b in order:
                t = time.perf_counter()
                done = subprocess.run(argv(b, queries[r % len(queries)]), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                times[(name, b)].append((time.perf_counter() - t) * 1000)
                if done.returncode != 0:  # a failing command is fast, not a figure
                    sys.exit("%s failed (%d): %s" % (name, done.returncode, done.stderr.decode(errors="replace")[-500:]))
finally:
    server.terminate()
    server.wait()
def p50_p95(ts):
    ts = sorted(ts)
    return "%6.1f %6.1f" % (statistics.median(ts), ts[max(0, int(len(ts) * 0.95) - 1)])

if len(bins) > 1:
    for i, b in enumerate(bins):
        print("[%d] %s" % (i + 1, b))
print("%-30s" % "whole process, ms (p50 p95)" + "".join("  %13s" % ("[%d]" % (i + 1) if len(bins) > 1 else "") for i in range(len(bins))))
for name in cases:
    cols = [p50_p95(times[(name, b)]) for b in (bins if lore_case(name) else bins[:1])]
    print("%-30s" % name + "".join("  %13s" % c for c in cols))
