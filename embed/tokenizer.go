package embed

import (
	"encoding/json"
	"fmt"
	"strings"

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
	var raw [][]any
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, err
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
