package embed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer is the model's SentencePiece-style unigram tokenizer.
type tokenizer struct {
	pieces map[string]piece
	maxLen int // longest piece, in runes
}

type piece struct {
	id    int
	score float64
}

// reservedIDs are never matched (unknown, <s>, </s>, three extra tokens).
const reservedIDs = 6

func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	entries, ok := parseVocab(vocabJSON)
	if !ok { // not the plain shape parseVocab reads: the general decoder
		var err error
		if entries, err = decodeVocab(vocabJSON); err != nil {
			return nil, err
		}
	}
	t := &tokenizer{pieces: make(map[string]piece, len(entries))}
	for id, e := range entries {
		if id < reservedIDs || e.skip {
			continue
		}
		if _, dup := t.pieces[e.piece]; !dup {
			t.pieces[e.piece] = piece{id, e.score}
		}
		t.maxLen = max(t.maxLen, utf8.RuneCountInString(e.piece))
	}
	return t, nil
}

// vocabEntry is one entry of vocab.json: a piece and its score (0 when the
// score is null or missing). skip marks an empty entry ([]), which holds
// its id but no piece.
type vocabEntry struct {
	piece string
	score float64
	skip  bool
}

// decodeVocab reads vocab.json through encoding/json, for what parseVocab
// does not read: every entry is [] or starts with its piece as a string.
func decodeVocab(b []byte) ([]vocabEntry, error) {
	var raw [][]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := make([]vocabEntry, len(raw))
	for id, entry := range raw {
		if len(entry) == 0 {
			out[id].skip = true
			continue
		}
		s, ok := entry[0].(string)
		if !ok {
			if id < reservedIDs {
				out[id].skip = true
				continue
			}
			return nil, fmt.Errorf("entry %d: piece is not a string", id)
		}
		out[id].piece = s
		if len(entry) > 1 {
			out[id].score, _ = entry[1].(float64)
		}
	}
	return out, nil
}

// encode returns at most MaxTokens ids for text.
func (t *tokenizer) encode(text string) []int {
	text = strings.Join(strings.Fields(text), " ")
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	str := "▁" + strings.ReplaceAll(s, " ", "▁")
	// Byte offsets of rune boundaries, so lookups slice str without allocating.
	// Clipping the input first bounds the work: no id covers less than one rune.
	var at []int
	for i := range str {
		at = append(at, i)
		if len(at) > MaxTokens*24 {
			break
		}
	}
	n := len(at)
	at = append(at, len(str))
	if n > MaxTokens*24 {
		n = MaxTokens * 24
	}
	type node struct {
		score float64
		id    int
		len   int
	}
	best := make([]node, n+1)
	for end := 1; end <= n; end++ {
		for start := max(0, end-t.maxLen); start < end; start++ {
			p, ok := t.pieces[str[at[start]:at[end]]]
			if !ok {
				continue
			}
			score := best[start].score + p.score
			if best[end].score == 0 || score >= best[end].score {
				best[end] = node{score, p.id, end - start}
			}
		}
		if best[end].len == 0 { // no piece ends here: an unknown rune
			best[end] = node{best[end-1].score, 0, 1}
		}
	}
	var rev []int
	for pos := n; pos > 0; pos -= best[pos].len {
		rev = append(rev, best[pos].id)
	}
	ids := make([]int, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		if rev[i] == 0 && len(ids) > 0 && ids[len(ids)-1] == 0 {
			continue
		}
		ids = append(ids, rev[i])
	}
	if len(ids) > MaxTokens {
		ids = ids[:MaxTokens]
	}
	return ids
}

// parseVocab reads vocab.json's shape, [["piece", score], …], without
// encoding/json's reflection, which was half of the model's load once the
// weights were mapped. The pieces are slices of one copy of the file, not
// a string each, and no entry is boxed (BenchmarkNewTokenizer; the figures:
// docs/BENCHMARKS.md, "One warm lore"). ok is false
// for anything outside that shape (the caller then decodes it generally);
// its entries are what json.Unmarshal gives for the same input
// (TestTokenizer_VocabParsedAsJSONDoes).
func parseVocab(b []byte) (out []vocabEntry, ok bool) {
	p := &vocabParser{b: b, s: string(b)}
	if !p.expect('[') {
		return nil, false
	}
	if p.expect(']') {
		return []vocabEntry{}, p.end()
	}
	out = make([]vocabEntry, 0, bytes.Count(b, []byte("],"))+1)
	for {
		if !p.expect('[') {
			return nil, false
		}
		s, ok := p.str()
		if !ok || !p.expect(',') {
			return nil, false
		}
		score, ok := p.score()
		if !ok || !p.expect(']') {
			return nil, false
		}
		out = append(out, vocabEntry{piece: s, score: score})
		if p.expect(']') {
			return out, p.end()
		}
		if !p.expect(',') {
			return nil, false
		}
	}
}

// vocabParser reads b from i on.
type vocabParser struct {
	b []byte
	s string // b as a string, which the pieces are slices of
	i int
}

func (p *vocabParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\r' || p.b[p.i] == '\t') {
		p.i++
	}
}

// expect reads c after any white space.
func (p *vocabParser) expect(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (p *vocabParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// str reads a JSON string: as it is when it has no escapes, through
// encoding/json when it has.
func (p *vocabParser) str() (string, bool) {
	p.ws()
	b := p.b
	if p.i >= len(b) || b[p.i] != '"' {
		return "", false
	}
	j, esc := p.i+1, false
	for ; j < len(b) && b[j] != '"'; j++ {
		if b[j] == '\\' {
			esc = true
			j++
		} else if b[j] < 0x20 {
			return "", false
		}
	}
	if j >= len(b) {
		return "", false
	}
	lit := b[p.i : j+1]
	p.i = j + 1
	if !esc {
		return p.s[p.i-len(lit)+1 : p.i-1], utf8.Valid(lit)
	}
	var s string
	return s, json.Unmarshal(lit, &s) == nil
}

// score reads a number, or null (seven of the model's pieces have one),
// which is a score of 0 as the tokenizer takes it.
func (p *vocabParser) score() (float64, bool) {
	p.ws()
	b := p.b
	if p.i+4 <= len(b) && string(b[p.i:p.i+4]) == "null" {
		p.i += 4
		return 0, true
	}
	j := p.i
	for j < len(b) && strings.IndexByte("+-.0123456789eE", b[j]) >= 0 {
		j++
	}
	f, err := strconv.ParseFloat(p.s[p.i:j], 64)
	p.i = j
	return f, err == nil
}
