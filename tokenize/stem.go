package tokenize

import (
	"hash/maphash"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/unicode/norm"

	"github.com/lore-memory/lore/vault"
)

// maxTokenBytes bounds one index token; longer ones (base64, minified code)
// are cut on a rune boundary, the same way for notes and queries.
const maxTokenBytes = 255

// token turns a term (see terms) into what the index stores and queries
// look up: diacritics folded ("café" → "cafe"), English words of three or
// more letters stemmed with the Snowball (Porter2) English stemmer
// ("retries" → "retri", "retrying" → "retri"), and at most maxTokenBytes.
// Tokens are made here, in Go, and FTS5's ascii tokenizer takes them as they
// are, so the FTS table and the in-memory index (fts/internal/memindex) hold the very
// same tokens.
func Token(t string) string {
	ascii := true
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		t = foldDiacritics(t)
	}
	if len(t) >= 3 && len(t) <= 64 && lettersOnly(t) {
		t = stem(t)
	}
	if len(t) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut]
	}
	return t
}

func lettersOnly(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] < 'a' || t[i] > 'z' {
			return false
		}
	}
	return true
}

// foldDiacritics drops combining marks after canonical decomposition, leaving
// CJK text (which has none) as it is.
func foldDiacritics(t string) string {
	d := norm.NFD.String(t)
	if d == t && !strings.ContainsFunc(t, func(r rune) bool { return unicode.Is(unicode.Mn, r) }) {
		return t
	}
	var sb strings.Builder
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) || vault.IsCJK(r) {
			sb.WriteRune(r)
		}
	}
	if sb.Len() == 0 {
		return t
	}
	return norm.NFC.String(sb.String())
}

// porter2 stems a lower-case ASCII word with the Snowball English (Porter2)
// stemmer as the Snowball compiler generates it in Go (blevesearch/
// snowballstem): a third of the time of the hand-written kljensen/snowball
// used before, which converts every suffix it tries to runes. Their stems
// are the same (TestPorter2MatchesKljensen), so the index format did not
// change with it.
func porter2(w string) string {
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// Stems are memoized in a process-wide table, sharded so that the goroutines
// preparing files seldom meet on a lock: words follow a Zipf law, so the
// table answers nearly every lookup, and the stemmer allocates. (A table per
// pooled object was emptied by every garbage collection.)
type stemShard struct {
	mu sync.RWMutex
	m  map[string]string
}

// The shards' maps are made on first write, not at package init: 64 maps
// made ahead cost every process memory and time before main, whether it
// stems a word or not (`GODEBUG=inittrace=1`; docs/BENCHMARKS.md, "One warm
// lore"; TestStartup_LorePackagesInitCheaply holds it).
var stemShards [64]stemShard

// maxStemsPerShard bounds the table (64 × 1,024 words: the common ones; a
// rare word is stemmed again). A larger table costs more memory than it
// saves time: unbounded, a 100,000-note index held half a million words,
// and halving it from 64 × 2,048 freed a server's heap with no change in a
// cold index's time (docs/BENCHMARKS.md, "One warm lore", `lore bench`
// alternating): the workers' memos catch the repeats first.
const maxStemsPerShard = 1024

func stem(w string) string {
	sh := &stemShards[(int(w[0])*31+int(w[len(w)-1])*7+len(w))&63]
	sh.mu.RLock()
	s, ok := sh.m[w]
	sh.mu.RUnlock()
	if ok {
		return s
	}
	// Stemmed from a copy: the stem may be a slice of its word, and w of a
	// whole note the table would otherwise keep alive.
	k := strings.Clone(w)
	s = porter2(k)
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = make(map[string]string)
	}
	if len(sh.m) < maxStemsPerShard {
		sh.m[k] = s
	}
	sh.mu.Unlock()
	return s
}

// A Memo remembers what token made of each term, for one goroutine (no
// locks): a note repeats its words, and a vault its vocabulary. It is
// direct-mapped: each term has one slot, chosen by its hash, and a term
// takes the slot from the one before it. A slot holds its term's bytes, so
// that a lookup reads one place in memory (with the term on the heap,
// comparing it was a second cache miss). The nil memo remembers nothing.
// Index preparing and in-memory builds keep one per worker.
type Memo []memoSlot

type memoSlot struct {
	n     uint8 // the term's length; 0: empty
	stop  uint8 // StopID(term)
	same  bool  // the token is the term itself
	term  [memoTermBytes]byte
	token string // when not same
}

const (
	memoSlots     = 1 << 15 // 64 bytes each: 2 MiB
	memoTermBytes = 45      // longer terms are not remembered
)

var memoSeed = maphash.MakeSeed()

func NewMemo() Memo { return make(Memo, memoSlots) }

// lookup returns the token of term t and its stop-word number (StopID). The
// token may be a slice of t.
func (m Memo) lookup(t string) (string, uint8) {
	if m == nil || len(t) == 0 || len(t) > memoTermBytes {
		return Token(t), StopID(t)
	}
	s := &m[maphash.String(memoSeed, t)&(memoSlots-1)]
	if int(s.n) == len(t) && string(s.term[:s.n]) == t {
		if s.same {
			return t, s.stop
		}
		return s.token, s.stop
	}
	tok := Token(t)
	s.n, s.stop, s.same = uint8(len(t)), StopID(t), tok == t
	copy(s.term[:], t)
	if s.same {
		s.token = ""
	} else {
		s.token = strings.Clone(tok) // tok may be a slice of a whole note
	}
	return tok, s.stop
}

// List is Text as a list.
func List(s string) []string { return Memo(nil).List(s) }

// List is the function List, remembering in m.
func (m Memo) List(s string) []string {
	var out []string
	m.Index(s, func(t string) { out = append(out, t) })
	return out
}
