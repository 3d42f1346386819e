#!/usr/bin/env python3
"""What checking notes' citations of code costs at scale: a generated code
repository of FILES files (a Go function each, HISTORY commits that each
touch a few files) and a vault of NOTES notes, each citing one file and the
function in it. A tenth of the functions are renamed in a last commit, so
about a tenth of the citations break.

  stale.py LORE_BIN [NOTES [FILES [HISTORY]]]     (defaults 10000 5000 200)

Prints the time of `lore stale` cold (no cache), warm (nothing moved), after
one more code commit, and of `lore activate` warm, with what each found.
Everything is made in a temporary folder and removed.
"""
import os, random, shutil, subprocess, sys, tempfile, time

lore = os.path.abspath(sys.argv[1])
notes = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
files = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
history = int(sys.argv[4]) if len(sys.argv) > 4 else 200
rng = random.Random(20261206)
tmp = tempfile.mkdtemp(prefix="lore-stale-bench-")
code, vault = os.path.join(tmp, "code"), os.path.join(tmp, "vault")
base_env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@localhost", GIT_COMMITTER_NAME="b",
                GIT_COMMITTER_EMAIL="b@localhost", LORE_NO_SERVER="1", XDG_CONFIG_HOME=os.path.join(tmp, "config"))


def git(cwd, *args, date=None):
    env = dict(base_env)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def name(i):
    return f"pkg{i % 97}/file{i}.go"


def func(i, renamed=False):
    return f"handleThing{i}" + ("V2" if renamed else "")


def write(i, renamed=False, touch=0):
    p = os.path.join(code, name(i))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(f"package pkg{i % 97}\n\n// {func(i, renamed)} does thing {i} (revision {touch}).\n"
                f"func {func(i, renamed)}(n int) int {{\n\treturn n + {i}\n}}\n")


os.makedirs(code)
git(code, "init", "-q", "-b", "main")
for i in range(files):
    write(i)
git(code, "add", "-A")
git(code, "commit", "-qm", "start", date="2020-01-01T00:00:00Z")
for c in range(history):
    for i in rng.sample(range(files), 5):
        write(i, touch=c + 1)
    git(code, "commit", "-qam", f"touch {c}", date=f"2020-{1 + c * 11 // history:02d}-{1 + c % 28:02d}T12:00:00Z")

os.makedirs(os.path.join(vault, "notes"))
with open(os.path.join(vault, "lore.yaml"), "w") as f:
    f.write("embedding: {provider: none}\n")
for n in range(notes):
    i = n % files
    with open(os.path.join(vault, "notes", f"n{n}.md"), "w") as f:
        f.write(f"# Note {n}\n\n## Thing {i}\n\n`{func(i)}` in `{name(i)}` adds {i} to n; see the handler table.\n")
git(vault, "init", "-q", "-b", "main")
git(vault, "add", "-A")
git(vault, "commit", "-qm", "notes", date="2021-01-01T00:00:00Z")

renamed = rng.sample(range(files), files // 10)
for i in renamed:
    write(i, renamed=True)
git(code, "commit", "-qam", "rename a tenth", date="2022-01-01T00:00:00Z")
subprocess.run([lore, "--vault", vault, "index"], env=base_env, check=True, stdout=subprocess.DEVNULL)


def timed(label, *args, bound=False):
    """bound: run in the code folder with LORE_VAULT set, as a bound workspace does."""
    cmd, env = [lore, "--vault", vault, *args], base_env
    if bound:
        cmd, env = [lore, *args], dict(base_env, LORE_VAULT=vault)
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=code, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    first = (p.stdout.splitlines() or [p.stderr.strip()])[0]
    print(f"{label:34s} {dt:8.2f} s   {first}")


print(f"{notes} notes, {notes} citations of a file and {notes} of a function; code: {files} files, {history + 2} commits; "
      f"{len(renamed)} functions renamed")
timed("lore stale, cold", "stale", "--code", code)
timed("lore stale, warm (nothing moved)", "stale", "--code", code)
write(0, touch=999)
git(code, "commit", "-qam", "one more", date="2022-02-01T00:00:00Z")
timed("lore stale, after one code commit", "stale", "--code", code)
timed("lore activate, first (checks its notes)", "activate", "handleThing7 adds to n", bound=True)
timed("lore activate, again (cache)", "activate", "handleThing7 adds to n", bound=True)
shutil.rmtree(tmp)
