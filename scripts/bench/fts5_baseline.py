#!/usr/bin/env python3
"""A plain SQLite FTS5 search over a folder of Markdown notes: the baseline
`lore search` is compared with in the README (one row per file, an OR of the
query's words, bm25 ranking, the top 10 paths).

  fts5_baseline.py index VAULT DB     build DB from VAULT's .md files
  fts5_baseline.py search DB QUERY    print the top 10 paths
  fts5_baseline.py eval VAULT FILE    score a question set (lore eval
                                      --questions's JSON Lines: query and
                                      expected "path#Heading") at note and
                                      at section level

For eval, the note level ranks one row per file, as search does; the section
level ranks one row per section (the text under each ATX heading outside code
fences, named by that heading), with the same OR of words and bm25.
"""
import json, os, re, sqlite3, sys

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

def notes(vault):
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in sorted(files):
            if f.endswith(".md"):
                p = os.path.join(root, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    yield os.path.relpath(p, vault), fh.read()

HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")

def sections(text):
    """(heading, text) of each section: the preamble has heading ''."""
    out, head, buf, fence = [], "", [], None
    for line in text.split("\n"):
        f = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if f:
            if fence is None:
                fence = f.group(1)[0]
            elif f.group(1)[0] == fence:
                fence = None
        m = HEADING.match(line) if fence is None else None
        if m:
            out.append((head, "\n".join(buf)))
            head, buf = m.group(2).strip(), [line]
        else:
            buf.append(line)
    out.append((head, "\n".join(buf)))
    return out

def evaluate(vault, file):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE notes USING fts5(path, body)")
    con.execute("CREATE VIRTUAL TABLE secs USING fts5(path, heading, body)")
    for path, text in notes(vault):
        con.execute("INSERT INTO notes VALUES (?, ?)", (path, text))
        for head, body in sections(text):
            con.execute("INSERT INTO secs VALUES (?, ?, ?)", (path, head, body))
    qs = [json.loads(l) for l in open(file, encoding="utf-8") if l.strip()]
    n1 = n3 = s1 = s3 = 0
    for q in qs:
        words = re.findall(r"\w+", q["query"].lower())
        match = " OR ".join('"%s"' % w for w in words)
        path, _, head = q["expected"].partition("#")
        top = [p for (p,) in con.execute("SELECT path FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 3", (match,))]
        n1 += top[:1] == [path]
        n3 += path in top
        top = [(p, h) for (p, h) in con.execute("SELECT path, heading FROM secs WHERE secs MATCH ? ORDER BY bm25(secs) LIMIT 3", (match,))]
        s1 += top[:1] == [(path, head)]
        s3 += (path, head) in top
    k = len(qs)
    print("questions  %d over %s (plain FTS5, unicode61)" % (k, vault))
    print("           section@1  section@3  note@1  note@3")
    print("fts5       %9.3f  %9.3f  %6.3f  %6.3f" % (s1 / k, s3 / k, n1 / k, n3 / k))

if __name__ == "__main__":
    if sys.argv[1] == "eval":
        evaluate(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "index":
        index(sys.argv[2], sys.argv[3])
    else:
        search(sys.argv[2], " ".join(sys.argv[3:]))
