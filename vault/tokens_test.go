package vault

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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

// estimateTokensReference is the plain reading of EstimateTokens' rules,
// rune by rune; the run-length version must agree with it.
func estimateTokensReference(s string) int {
	n := 0
	letters, digits, other, spaces, punct, breaks := 0, 0, 0, 0, 0, 0
	flush := func() {
		if letters > 0 {
			n += (letters + 7) / 8
		}
		if digits > 0 {
			n += (digits + 2) / 3
		}
		if other > 0 {
			n += (other + 1) / 2
		}
		if spaces > 1 {
			n++
		}
		if punct > 0 {
			n += (punct + 1) / 2
		}
		if breaks > 0 {
			n++
		}
		letters, digits, other, spaces, punct, breaks = 0, 0, 0, 0, 0, 0
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			if digits > 0 || other > 0 || spaces > 0 || punct > 0 || breaks > 0 {
				flush()
			}
			letters++
		case r >= '0' && r <= '9':
			if letters > 0 || other > 0 || spaces > 0 || punct > 0 || breaks > 0 {
				flush()
			}
			digits++
		case r == ' ':
			if letters > 0 || digits > 0 || other > 0 || punct > 0 || breaks > 0 {
				flush()
			}
			spaces++
		case r == '\n' || r == '\t' || r == '\r':
			if letters > 0 || digits > 0 || other > 0 || spaces > 0 || punct > 0 {
				flush()
			}
			breaks++
		case r < utf8.RuneSelf:
			if letters > 0 || digits > 0 || other > 0 || spaces > 0 || breaks > 0 {
				flush()
			}
			punct++
		case IsCJK(r):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if letters > 0 || digits > 0 || spaces > 0 || punct > 0 || breaks > 0 {
				flush()
			}
			other++
		default:
			if letters > 0 || digits > 0 || other > 0 || spaces > 0 || breaks > 0 {
				flush()
			}
			punct++
		}
	}
	flush()
	return n
}

func TestEstimateTokens_MatchesTheReference(t *testing.T) {
	pieces := []string{"a", "Zq", "7", "42", " ", "  ", "\n", "\t", "\r\n", ".", "--", "`", "é", "ж", "٣", "检", "索", "か", "—", "😀", "\xff", "\xe6\xa3", "_", "\x00"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for k := rng.IntN(30); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := sb.String()
		if got, want := EstimateTokens(s), estimateTokensReference(s); got != want {
			t.Fatalf("EstimateTokens(%q) = %d, reference %d", s, got, want)
		}
		if got, want := estimateTokens([]byte(s)), estimateTokensReference(s); got != want {
			t.Fatalf("estimateTokens([]byte(%q)) = %d, reference %d", s, got, want)
		}
	}
}
