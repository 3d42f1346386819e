package embed

import (
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
	raw, ok := parseVocab(vocabJSON)
	if !ok { // not the plain shape parseVocab reads: the general decoder
		if err := json.Unmarshal(vocabJSON, &raw); err != nil {
			return nil, err
		}
	}
	t := &tokenizer{pieces: make(map[string]piece, len(raw))}
	for id, entry := range raw {
		if id < reservedIDs || len(entry) == 0 {
			continue
		}
		s, ok := entry[0].(string)
		if !ok {
			return nil, fmt.Errorf("entry %d: piece is not a string", id)
		}
		var score float64
		if len(entry) > 1 {
			if f, ok := entry[1].(float64); ok {
				score = f
			}
		}
		if _, dup := t.pieces[s]; !dup {
			t.pieces[s] = piece{id, score}
		}
		t.maxLen = max(t.maxLen, len([]rune(s)))
	}
	return t, nil
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
// encoding/json's reflection: decoding the 8,002 entries as [][]any was
// 8 ms of the model's 16 ms load once the weights were mapped. ok is false
// for anything outside that shape (the caller then decodes it generally);
// its entries are what json.Unmarshal gives for the same input
// (TestTokenizer_VocabParsedAsJSONDoes).
func parseVocab(b []byte) (out [][]any, ok bool) {
	p := &vocabParser{b: b}
	if !p.expect('[') {
		return nil, false
	}
	if p.expect(']') {
		return [][]any{}, p.end()
	}
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
		out = append(out, []any{s, score})
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
		return string(lit[1 : len(lit)-1]), utf8.Valid(lit)
	}
	var s string
	return s, json.Unmarshal(lit, &s) == nil
}

// score reads a number, or null (seven of the model's pieces have one),
// which stays nil as encoding/json leaves it.
func (p *vocabParser) score() (any, bool) {
	p.ws()
	b := p.b
	if p.i+4 <= len(b) && string(b[p.i:p.i+4]) == "null" {
		p.i += 4
		return nil, true
	}
	j := p.i
	for j < len(b) && strings.IndexByte("+-.0123456789eE", b[j]) >= 0 {
		j++
	}
	f, err := strconv.ParseFloat(string(b[p.i:j]), 64)
	p.i = j
	return f, err == nil
}
