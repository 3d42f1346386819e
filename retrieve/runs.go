package retrieve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// runRecord is what a retrieval run keeps: enough to explain every candidate's
// fate and to show later the exact text delivered, even after notes change.
type runRecord struct {
	RunID         string           `json:"run_id"`
	CreatedAt     string           `json:"created_at"`
	Query         string           `json:"query"`
	Project       string           `json:"project"`
	Mode          string           `json:"mode"`
	IndexRevision string           `json:"index_revision"`
	StateUnits    int              `json:"state_units"`
	Limits        vault.Limits     `json:"limits"`
	Candidates    []*candidate     `json:"-"`
	Ranked        []runCandidate   `json:"candidates"`
	Fragments     []vault.Fragment `json:"-"`
	Delivered     []runDelivered   `json:"delivered"`
	Removed       []string         `json:"removed"`
	TimingsUS     map[string]int64 `json:"timings_us"`
	TotalUS       int64            `json:"total_us"`
}

type runCandidate struct {
	Rank        int      `json:"rank"`
	UnitKey     string   `json:"unit_key"`
	Path        string   `json:"path"`
	HeadingPath []string `json:"heading_path"`
	Status      string   `json:"status"`
	Tokens      int      `json:"tokens"`
	stages
}

type runDelivered struct {
	Action      string `json:"action"`
	UnitKey     string `json:"unit_key"`
	ContentHash string `json:"content_hash"`
	Path        string `json:"path"`
	Start       int    `json:"start_byte"`
	End         int    `json:"end_byte"`
	Content     string `json:"content"` // the text as delivered (a stored copy)
}

func newRunID(t time.Time) string {
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf("run_%012x%s", t.UnixMilli(), hex.EncodeToString(b[:]))
}

func (p *Pipeline) recordRun(ctx context.Context, rec runRecord, at time.Time) (string, error) {
	rec.RunID = newRunID(at)
	rec.CreatedAt = at.UTC().Format(time.RFC3339Nano)
	byKey := map[string]*candidate{}
	for i, c := range rec.Candidates {
		byKey[c.UnitKey] = c
		s := c.stages
		s.VectorScore, s.Fused, s.LinkBonus, s.CoverBonus, s.Final = round4(s.VectorScore), round6(s.Fused), round6(s.LinkBonus), round6(s.CoverBonus), round6(s.Final)
		rec.Ranked = append(rec.Ranked, runCandidate{
			Rank: i + 1, UnitKey: c.UnitKey, Path: c.Path, HeadingPath: markdown.ShownHeadings(c.HeadingPath), Status: c.Status,
			Tokens: c.Tokens, stages: s,
		})
	}
	for _, f := range rec.Fragments {
		d := runDelivered{Action: f.Action, UnitKey: f.UnitKey, ContentHash: f.ContentHash, Path: f.Path, Content: f.Content}
		if c := byKey[f.UnitKey]; c != nil {
			d.Start, d.End, d.Content = c.Start, c.End, c.Content
		} // else a held unit that changed, sent again though not ranked
		rec.Delivered = append(rec.Delivered, d)
	}
	if rec.Removed == nil {
		rec.Removed = []string{}
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	err = p.rec.SaveRun(ctx, fts.Run{
		RunSummary:    fts.RunSummary{RunID: rec.RunID, CreatedAt: rec.CreatedAt, Project: rec.Project, Query: rec.Query, TotalUS: rec.TotalUS},
		IndexRevision: rec.IndexRevision, Record: body,
	})
	if err != nil {
		return "", err
	}
	return rec.RunID, nil
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
