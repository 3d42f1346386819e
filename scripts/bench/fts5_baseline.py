#!/usr/bin/env python3
"""A plain SQLite FTS5 search over a folder of Markdown notes: the baseline
`lore search` is compared with in the README (one row per file, an OR of the
query's words, bm25 ranking, the top 10 paths).

  fts5_baseline.py index VAULT DB     build DB from VAULT's .md files
  fts5_baseline.py search DB QUERY    print the top 10 paths
"""
import os, re, sqlite3, sys

def index(vault, db):
    con = sqlite3.connect(db)
    con.execute("DROP TABLE IF EXISTS notes")
    con.execute("CREATE VIRTUAL TABLE notes USING fts5(path, body)")
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if f.endswith(".md"):
                p = os.path.join(root, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    con.execute("INSERT INTO notes VALUES (?, ?)", (os.path.relpath(p, vault), fh.read()))
    con.commit()

def search(db, query):
    words = re.findall(r"\w+", query.lower())
    if not words:
        return
    match = " OR ".join('"%s"' % w for w in words)
    con = sqlite3.connect(db)
    for (path,) in con.execute("SELECT path FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 10", (match,)):
        print(path)

if __name__ == "__main__":
    if sys.argv[1] == "index":
        index(sys.argv[2], sys.argv[3])
    else:
        search(sys.argv[2], " ".join(sys.argv[3:]))
