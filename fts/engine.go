package fts

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// The lexical stage has two engines that give the same scores:
//
//   - FTS5's bm25() over the SQL index (lookups.go), which one-shot
//     commands use, and a server until its copy is built;
//   - the in-memory copy of FTS5's scorer that a long-running process
//     keeps (package fts/internal/memindex: the copy; resident.go: its
//     upkeep from the change logs; memvec.go and fts/internal/signbits:
//     the vectors' sign bits beside it).
//
// Both answer one call, lexical.bm25; Lookups.BM25 takes whichever this
// process has (lexicalEngine), and TestMemIndexMatchesFTS5 holds the two to
// the same units, order and scores for every query and project view.
type lexical interface {
	bm25(ctx context.Context, ts []string, project string, limit int) ([]Unit, error)
}

// sqlLexical is FTS5's engine.
type sqlLexical struct{ ix *Index }

func (e sqlLexical) bm25(ctx context.Context, ts []string, project string, limit int) ([]Unit, error) {
	return e.ix.bm25FTS(ctx, MatchExpr(ts), project, DefaultWeights(), limit)
}

// memLexical is the in-memory engine.
type memLexical struct {
	ix *Index
	m  *memCopy
}

func (e memLexical) bm25(ctx context.Context, ts []string, project string, limit int) ([]Unit, error) {
	return e.ix.memHits(ctx, e.m.Search(ts, memView(project), limit))
}

// lexicalEngine returns the engine this process answers the lexical stage
// with: the in-memory copy when it keeps one, else FTS5.
func (ix *Index) lexicalEngine(ctx context.Context) (lexical, error) {
	m, err := ix.memFor(ctx)
	if err != nil {
		return nil, err
	}
	if m != nil {
		return memLexical{ix, m}, nil
	}
	return sqlLexical{ix}, nil
}

// MatchExpr builds the FTS5 expression the lexical stage asks: an OR of the
// terms (tokenize.QueryTerms), so a document that holds any of them competes
// and BM25 ranks those that hold more and rarer terms first. A lone CJK
// character matches as a prefix of the bigrams it starts. Exported for
// scripts/eval/fitceiling, which asks FTS5 the same terms column by column.
func MatchExpr(ts []string) string {
	var sb strings.Builder
	for i, t := range ts {
		if i > 0 {
			sb.WriteString(" OR ")
		}
		sb.WriteByte('"')
		sb.WriteString(strings.ReplaceAll(t, `"`, `""`))
		sb.WriteByte('"')
		if r, n := utf8.DecodeRuneInString(t); n == len(t) && vault.IsCJK(r) {
			sb.WriteByte('*')
		}
	}
	return sb.String()
}
