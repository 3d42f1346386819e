#!/usr/bin/env python3
"""A warm server on a large vault: `lore mcp --http` started on VAULT, its
in-memory copies built, then `search` and `activate` asked through its
warm-path endpoints (what `lore search`/`lore activate` send it) in
alternating rounds; p50/p95 of each, the server's resident memory after
the queries (with its anonymous and file-backed parts: the mapped model
weights and the copy's frozen postings are file pages the kernel can take
back) and its peak.

  serve.py LORE_BIN VAULT [ROUNDS]

VAULT is a vault such as `lore bench -n 100000 -dir VAULT` keeps. The server
runs with LORE_MCP_NO_EMBED=1 (embedding 600,000 units with the built-in
model would take the run); every activate still embeds its query.
"""
import json, os, statistics, subprocess, sys, time, urllib.request

lore, vault = sys.argv[1], os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 30
env = dict(os.environ, LORE_VAULT=vault, LORE_PROJECT="", LORE_MCP_NO_EMBED="1", LORE_MCP_NO_SYNC="1")
t0 = time.time()
server = subprocess.Popen([lore, "mcp", "--http", "127.0.0.1:0"], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
ready = None
for line in server.stderr:
    sys.stderr.write(line)
    if "in memory:" in line or "larger than the in-memory copy" in line:
        ready = time.time() - t0
        break
if ready is None:
    sys.exit("the server stopped before its copies were built")
data = os.path.join(vault, ".git", "lore")
info = json.load(open(os.path.join(data, "mcp-http.json")))
tok = open(os.path.join(data, "mcp-http.token")).read().strip()
base = info["url"].rsplit("/mcp", 1)[0]
queries = ["retry budget sync", "deploy the service to staging", "cache invalidation after writes", "并发 控制",
           "parseConfigFile defaults", "why did the backup job fail", "rate limit per token"]

def ask(path, q):
    req = urllib.request.Request(base + "/lore/v1/" + path, data=json.dumps({"query": q}).encode(),
                                 headers={"Authorization": "Bearer " + tok})
    t = time.perf_counter()
    urllib.request.urlopen(req).read()
    return (time.perf_counter() - t) * 1000

def status(key):
    for line in open("/proc/%d/status" % server.pid):
        if line.startswith(key + ":"):
            return int(line.split()[1]) // 1024
    return 0

try:
    for q in queries:  # the first round loads the model and warms caches
        ask("activate", q), ask("search", q)
    times = {"activate": [], "search": []}
    for r in range(rounds):
        for q in queries:
            for path in times:
                times[path].append(ask(path, q))
    rss, peak = status("VmRSS"), status("VmHWM")
    anon, filed = status("RssAnon"), status("RssFile")
finally:
    server.terminate()
    server.wait()
print("server ready (copies built) after %.1f s" % ready)
print("%-22s %8s %8s" % ("warm server, ms", "p50", "p95"))
for path, ts in times.items():
    ts.sort()
    print("%-22s %8.1f %8.1f" % (path, statistics.median(ts), ts[int(len(ts) * 0.95) - 1]))
print("resident after the queries %d MB (%d anonymous, %d mapped files), peak %d MB" % (rss, anon, filed, peak))
