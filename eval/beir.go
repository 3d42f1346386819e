package eval

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// BEIR is a retrieval data set in BEIR format.
type BEIR struct {
	Docs    []BEIRDoc
	Queries []BEIRQuery
	Qrels   map[string]map[string]int // query id → doc id → grade
}

// BEIRDoc is one corpus line.
type BEIRDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// BEIRQuery is one query line.
type BEIRQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// LoadBEIR reads corpus.jsonl[.gz], queries.jsonl and qrels/test.tsv from dir.
func LoadBEIR(dir string) (*BEIR, error) {
	b := &BEIR{Qrels: map[string]map[string]int{}}
	corpus := filepath.Join(dir, "corpus.jsonl")
	if _, err := os.Stat(corpus); err != nil {
		corpus += ".gz"
	}
	if err := readJSONL(corpus, func(line []byte) error {
		var d BEIRDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		b.Docs = append(b.Docs, d)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		b.Queries = append(b.Queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return nil, fmt.Errorf("qrels: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		if len(cols) != 3 || (n == 1 && cols[0] == "query-id") {
			continue
		}
		grade, err := strconv.Atoi(cols[2])
		if err != nil {
			return nil, fmt.Errorf("qrels line %d: score %q is not a number", n, cols[2])
		}
		if b.Qrels[cols[0]] == nil {
			b.Qrels[cols[0]] = map[string]int{}
		}
		b.Qrels[cols[0]][cols[1]] = grade
	}
	return b, sc.Err()
}

func readJSONL(p string, each func([]byte) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(p, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", p, n, err)
		}
	}
	return sc.Err()
}

// DocPath is the vault path a BEIR document is written to.
func DocPath(id string) string {
	var sb strings.Builder
	for _, r := range id {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			sb.WriteRune(r)
		} else {
			fmt.Fprintf(&sb, "~%x", r)
		}
	}
	return "docs/" + sb.String() + ".md"
}

// WriteVault writes each document as a note: the title in frontmatter, the
// text as the body. Files that already hold the same text are left alone, so
// a kept vault (lore eval --keep) is not re-read.
func (b *BEIR) WriteVault(root string) error {
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		return err
	}
	for _, d := range b.Docs {
		fm, err := yaml.Marshal(map[string]string{"title": d.Title})
		if err != nil {
			return err
		}
		body := "---\n" + string(fm) + "---\n" + d.Text + "\n"
		p := filepath.Join(root, filepath.FromSlash(DocPath(d.ID)))
		if old, err := os.ReadFile(p); err == nil && string(old) == body {
			continue // a kept vault: leave it as indexed
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Metrics are BEIR's figures, computed as pytrec_eval computes them.
type Metrics struct {
	Queries   int
	NDCG10    float64
	Recall10  float64
	Recall100 float64
	MRR10     float64
	QueryTime time.Duration
}

// Ranker returns the ranked document ids for a query, best first.
type Ranker func(ctx context.Context, query string) ([]string, error)

// Evaluate runs every judged query through rank and averages the metrics.
func (b *BEIR) Evaluate(ctx context.Context, rank Ranker) (Metrics, error) {
	var m Metrics
	start := time.Now()
	for _, q := range b.Queries {
		rel := b.Qrels[q.ID]
		if len(rel) == 0 {
			continue
		}
		ranked, err := rank(ctx, q.Text)
		if err != nil {
			return m, fmt.Errorf("query %s: %w", q.ID, err)
		}
		n, r, rr := scoreRanking(ranked, rel)
		_, r10, _ := rankMetrics(ranked, rel, 10, 10, 10)
		m.Recall10 += r10
		m.NDCG10 += n
		m.Recall100 += r
		m.MRR10 += rr
		m.Queries++
	}
	m.QueryTime = time.Since(start)
	if m.Queries > 0 {
		k := float64(m.Queries)
		m.NDCG10, m.Recall10, m.Recall100, m.MRR10 = m.NDCG10/k, m.Recall10/k, m.Recall100/k, m.MRR10/k
	}
	return m, nil
}
