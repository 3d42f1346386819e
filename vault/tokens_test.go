package vault

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// TestEstimateTokens_WithinTenPercentOfARealTokenizer checks EstimateTokens
// against OpenAI's cl100k_base BPE (tiktoken-go, vocabulary embedded, used
// only here) on English prose, Go code and Chinese text, each taken as a whole
// corpus, as token budgets are spent over many fragments.
func TestEstimateTokens_WithinTenPercentOfARealTokenizer(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	read := func(glob string, keep func(string) bool) string {
		var sb strings.Builder
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if keep(f) {
				b, _ := os.ReadFile(f)
				sb.Write(b)
				sb.WriteByte('\n')
			}
		}
		return sb.String()
	}
	isCJK := func(f string) bool {
		b, _ := os.ReadFile(f)
		han := 0
		for _, r := range string(b) {
			if IsCJK(r) {
				han++
			}
		}
		return han > 100
	}
	corpora := map[string]string{
		"english": read("../testdata/demo-vault/*/*.md", func(f string) bool { return !isCJK(f) }),
		"code":    read("*.go", func(string) bool { return true }),
		"chinese": read("../testdata/cjk/*.md", func(string) bool { return true }) + read("../testdata/demo-vault/*/*.md", isCJK),
	}
	for name, text := range corpora {
		ids, _, err := enc.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		real, est := len(ids), EstimateTokens(text)
		dev := float64(est-real) / float64(real)
		t.Logf("%-8s real %6d  estimate %6d  (%+.1f%%)", name, real, est, 100*dev)
		if math.Abs(dev) > 0.10 {
			t.Errorf("%s: estimate %d is %+.1f%% off cl100k_base's %d", name, est, 100*dev, real)
		}
	}
}

func BenchmarkEstimateTokens(b *testing.B) {
	text := strings.Repeat("The outbox retries a failed push (with exponential backoff); see `internal/fts/index.go:42`, parseConfigFile() and max_retry_count = 5.\n", 40)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		EstimateTokens(text)
	}
}
