// Command hookbench measures lore's agent hooks from outside, as a client's
// hook runner meets them: whole `lore hook prompt` processes, and the
// tokens they add to a model's context.
//
//	go run -tags sqlite_fts5 ./scripts/bench/hookbench -lore bin/lore -vault DIR [-questions FILE] [-rounds N]
//
// It prints three tables:
//
//  1. Process time of `lore hook prompt --client claude` for a submitted
//     prompt, p50 and p95, with a warm `lore mcp --http` running and
//     without one (LORE_NO_SERVER=1), beside `lore version` (the process
//     floor), in alternating rounds (each round runs the three cases in a
//     rotating order, each hook with a new session, so every call is a
//     first prompt).
//  2. Tokens a prompt's hook adds (lore's estimate, vault.EstimateTokens),
//     median and p95 over the questions, and the share that get nothing.
//  3. For sequences of related prompts (questions whose answer is in the
//     same note, asked one after another in one session), the tokens an
//     agent is sent: by activate calls alone (each with the previous
//     next_state, the MCP text an agent reads), by the hook alone (one
//     client session), and by both when the agent also calls activate on
//     every prompt.
//
// -questions is a JSON Lines file of {"query", "project", "expected"} (the
// demo questions: testdata/demo-questions.jsonl); without it, the queries
// of the synthetic vault lore bench makes (eval/synth) are asked, with no
// project, and table 3 is left out. The vault must be indexed (the script
// runs lore index --no-embed first) and be a git repository.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/vault"
)

type question struct {
	Query    string `json:"query"`
	Project  string `json:"project"`
	Expected string `json:"expected"`
}

func main() {
	lore := flag.String("lore", "bin/lore", "the lore binary")
	vaultDir := flag.String("vault", "", "the vault")
	qfile := flag.String("questions", "", "questions (JSON Lines); default: the synthetic vault's queries")
	rounds := flag.Int("rounds", 21, "timing rounds")
	flag.Parse()
	if *vaultDir == "" {
		fail(fmt.Errorf("-vault is required"))
	}
	bin, _ := filepath.Abs(*lore)
	root, _ := filepath.Abs(*vaultDir)
	var qs []question
	if *qfile != "" {
		var err error
		if qs, err = readQuestions(*qfile); err != nil {
			fail(err)
		}
	} else {
		for _, q := range synth.Queries(60, 1) {
			qs = append(qs, question{Query: q})
		}
	}
	tmp, err := os.MkdirTemp("", "hookbench-*")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	b := &bench{lore: bin, vault: root, tmp: tmp, codes: map[string]string{}}
	if _, err := b.cmd("", nil, "", "index", "--no-embed"); err != nil {
		fail(err)
	}
	stop, err := b.startServer()
	if err != nil {
		fail(err)
	}
	defer stop()
	fmt.Printf("hookbench: %s, %d questions, %d rounds\n\n", root, len(qs), *rounds)
	b.timings(qs, *rounds)
	b.tokens(qs)
	if *qfile != "" {
		b.sequences(qs)
	}
}

type bench struct {
	lore, vault, tmp string
	codes            map[string]string // project → a code folder bound to it
	sessions         int
}

// code returns a code folder bound to the vault and project.
func (b *bench) code(project string) string {
	if d, ok := b.codes[project]; ok {
		return d
	}
	d := filepath.Join(b.tmp, "code-"+project)
	os.MkdirAll(d, 0o755)
	cfg := "vault: " + b.vault + "\n"
	if project != "" {
		cfg += "project: " + project + "\n"
	}
	os.WriteFile(filepath.Join(d, ".lore.yaml"), []byte(cfg), 0o644)
	b.codes[project] = d
	return d
}

// cmd runs lore in the project's code folder with stdin and more
// environment.
func (b *bench) cmd(project string, env []string, stdin string, args ...string) ([]byte, error) {
	c := exec.Command(b.lore, args...)
	c.Dir = b.code(project)
	c.Env = append(append(os.Environ(), "LORE_VAULT=", "LORE_PROJECT=", "XDG_CONFIG_HOME="+filepath.Join(b.tmp, "config")), env...)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.Output()
	if err != nil {
		return out, fmt.Errorf("lore %s: %v", strings.Join(args, " "), err)
	}
	return out, nil
}

func (b *bench) startServer() (func(), error) {
	info := filepath.Join(b.vault, ".git", "lore", "mcp-http.json")
	os.Remove(info)
	c := exec.Command(b.lore, "mcp", "--http", "127.0.0.1:0")
	c.Dir = b.code("")
	c.Env = append(os.Environ(), "LORE_VAULT=", "LORE_PROJECT=", "LORE_MCP_NO_EMBED=1", "LORE_MCP_NO_SYNC=1", "XDG_CONFIG_HOME="+filepath.Join(b.tmp, "config"))
	if err := c.Start(); err != nil {
		return nil, err
	}
	for i := 0; i < 400; i++ {
		if _, err := os.Stat(info); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // the in-memory copies are built after it listens
	return func() { c.Process.Signal(os.Interrupt); c.Wait() }, nil
}

// hook runs lore hook prompt as Claude Code would and returns the context
// it added ("" for none).
func (b *bench) hook(q question, session string, warm bool) (string, error) {
	in, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": q.Query, "cwd": b.code(q.Project), "transcript_path": ""})
	var env []string
	if !warm {
		env = []string{"LORE_NO_SERVER=1"}
	}
	out, err := b.cmd(q.Project, env, string(in), "hook", "prompt", "--client", "claude")
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return "", err
	}
	var o struct {
		H struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		return "", fmt.Errorf("hook output: %v: %s", err, out)
	}
	return o.H.Context, nil
}

func (b *bench) newSession() string {
	b.sessions++
	return fmt.Sprintf("bench-%d-%d", os.Getpid(), b.sessions)
}

func (b *bench) timings(qs []question, rounds int) {
	cases := []struct {
		name string
		run  func(q question) error
	}{
		{"lore version (process start)", func(question) error { _, err := b.cmd("", nil, "", "version"); return err }},
		{"lore hook prompt, warm server", func(q question) error { _, err := b.hook(q, b.newSession(), true); return err }},
		{"lore hook prompt, no server", func(q question) error { _, err := b.hook(q, b.newSession(), false); return err }},
	}
	times := make([][]time.Duration, len(cases))
	for r := 0; r < rounds+1; r++ { // round 0 warms the page cache and is not kept
		q := qs[r%len(qs)]
		for k := range cases {
			i := (k + r) % len(cases)
			start := time.Now()
			if err := cases[i].run(q); err != nil {
				fail(err)
			}
			if r > 0 {
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	fmt.Println("whole process                         p50        p95")
	for i, c := range cases {
		fmt.Printf("%-34s %8s  %8s\n", c.name, pct(times[i], 50), pct(times[i], 95))
	}
	fmt.Println()
}

func (b *bench) tokens(qs []question) {
	var toks []int
	empty := 0
	for _, q := range qs {
		text, err := b.hook(q, b.newSession(), true)
		if err != nil {
			fail(err)
		}
		n := vault.EstimateTokens(text)
		if text == "" {
			empty++
		}
		toks = append(toks, n)
	}
	sort.Ints(toks)
	fmt.Printf("tokens a prompt's hook adds: median %d, p95 %d, max %d; %d of %d prompts (%.0f%%) get nothing\n\n",
		toks[len(toks)/2], toks[(len(toks)*95+99)/100-1], toks[len(toks)-1], empty, len(qs), 100*float64(empty)/float64(len(qs)))
}

// sequences asks, for each note that answers two or more questions, those
// questions in order in one session.
func (b *bench) sequences(qs []question) {
	groups := map[string][]question{}
	var order []string
	for _, q := range qs {
		note, _, _ := strings.Cut(q.Expected, "#")
		key := q.Project + "\x00" + note
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], q)
	}
	var seqs, prompts, act, hk int
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		seqs++
		session, state := b.newSession(), ""
		for _, q := range g {
			prompts++
			text, err := b.hook(q, session, true)
			if err != nil {
				fail(err)
			}
			hk += vault.EstimateTokens(text)
			args := []string{"activate", q.Query, "--json"}
			if state != "" {
				args = append(args, "--state", state)
			}
			out, err := b.cmd(q.Project, nil, "", args...)
			if err != nil {
				fail(err)
			}
			var a vault.Activation
			if err := json.Unmarshal(out, &a); err != nil {
				fail(fmt.Errorf("activate --json: %v", err))
			}
			state = a.NextState
			act += vault.EstimateTokens(a.Text())
		}
	}
	fmt.Printf("%d sequences of related prompts (%d prompts), tokens sent to the agent:\n", seqs, prompts)
	fmt.Printf("  activate alone (with state)        %6d\n", act)
	fmt.Printf("  the hook alone (one session)       %6d\n", hk)
	fmt.Printf("  the hook, and activate every prompt %5d\n", hk+act)
}

func readQuestions(p string) ([]question, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []question
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q question
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p+99)/100 - 1
	return s[max(0, i)].Round(100 * time.Microsecond).String()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hookbench:", err)
	os.Exit(1)
}
