#!/usr/bin/env python3
"""Whole-process timings on one vault, in alternating rounds: `lore search`
and `lore activate` with a warm `lore mcp --http` running and without one
(LORE_NO_SERVER=1), `lore version` (process start alone), and a plain
SQLite FTS5 search in Python (fts5_baseline.py, indexed first).

  oneshot.py LORE_BIN VAULT [ROUNDS]

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

lore, vault = sys.argv[1], os.path.abspath(sys.argv[2])
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
    "lore version (process start)": lambda q: [lore, "version"],
    "lore search, warm server": lambda q: [lore, "search", q],
    "lore search, no server": lambda q: [lore, "search", q],
    "lore activate, warm server": lambda q: [lore, "activate", q],
    "lore activate, no server": lambda q: [lore, "activate", q],
    "python3 + plain FTS5": lambda q: [sys.executable, os.path.join(here, "fts5_baseline.py"), "search", db, q],
}
if os.environ.get("QMD"):
    qmd = shlex.split(os.environ["QMD"])
    cases["qmd search (BM25)"] = lambda q: qmd + ["search", q]
times = {k: [] for k in cases}
try:
    for r in range(rounds):
        for name, argv in cases.items():
            e = dict(env, LORE_NO_SERVER="1") if "no server" in name else env
            t = time.perf_counter()
            done = subprocess.run(argv(queries[r % len(queries)]), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            times[name].append((time.perf_counter() - t) * 1000)
            if done.returncode != 0:  # a failing command is fast, not a figure
                sys.exit("%s failed (%d): %s" % (name, done.returncode, done.stderr.decode(errors="replace")[-500:]))
finally:
    server.terminate()
    server.wait()
print("%-30s %8s %8s" % ("whole process, ms", "p50", "p95"))
for name, ts in times.items():
    ts.sort()
    print("%-30s %8.1f %8.1f" % (name, statistics.median(ts), ts[max(0, int(len(ts) * 0.95) - 1)]))
