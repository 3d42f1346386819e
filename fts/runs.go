package fts

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

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

func (ix *Index) recordRun(ctx context.Context, rec runRecord, at time.Time) (string, error) {
	rec.RunID = newRunID(at)
	rec.CreatedAt = at.UTC().Format(time.RFC3339Nano)
	byKey := map[string]*candidate{}
	for i, c := range rec.Candidates {
		byKey[c.UnitKey] = c
		s := c.stages
		s.VectorScore, s.Fused, s.LinkBonus, s.Final = round4(s.VectorScore), round6(s.Fused), round6(s.LinkBonus), round6(s.Final)
		rec.Ranked = append(rec.Ranked, runCandidate{
			Rank: i + 1, UnitKey: c.UnitKey, Path: c.Path, HeadingPath: c.HeadingPath, Status: c.Status,
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
	_, err = ix.db.ExecContext(ctx, `INSERT INTO runs(run_id, created_at, project, query, index_revision, total_us, record)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, rec.RunID, rec.CreatedAt, rec.Project, rec.Query, rec.IndexRevision, rec.TotalUS, string(body))
	if err != nil {
		return "", translate(fmt.Errorf("record retrieval run: %w", err))
	}
	// Keep the newest MaxRuns; trimming now and then keeps inserts cheap.
	if rec.RunID[len(rec.RunID)-2:] == "00" {
		ix.db.ExecContext(ctx, `DELETE FROM runs WHERE created_at <
			(SELECT created_at FROM runs ORDER BY created_at DESC LIMIT 1 OFFSET ?)`, MaxRuns)
	}
	return rec.RunID, nil
}

// MaxRuns is how many retrieval runs the index keeps (newest first).
const MaxRuns = 20000

// RunSummary is one line of `lore runs list`.
type RunSummary struct {
	RunID     string `json:"run_id"`
	CreatedAt string `json:"created_at"`
	Project   string `json:"project"`
	Query     string `json:"query"`
	TotalUS   int64  `json:"total_us"`
}

// Runs lists the most recent retrieval runs, newest first.
func (ix *Index) Runs(ctx context.Context, limit int) ([]RunSummary, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT run_id, created_at, project, query, total_us FROM runs
		ORDER BY created_at DESC, run_id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		var r RunSummary
		if err := rows.Scan(&r.RunID, &r.CreatedAt, &r.Project, &r.Query, &r.TotalUS); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, translate(rows.Err())
}

// Run returns one retrieval run's full record as JSON; a missing id is
// CodeNotFound.
func (ix *Index) Run(ctx context.Context, id string) (json.RawMessage, error) {
	var rec string
	err := ix.db.QueryRowContext(ctx, "SELECT record FROM runs WHERE run_id = ?", id).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, vault.Errorf(vault.CodeNotFound, "no retrieval run %s", id)
	}
	return json.RawMessage(rec), translate(err)
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// RunsByQuery returns the ids of a project's runs whose query is exactly q
// (for joining old agent logs that carry no run_id).
func (ix *Index) RunsByQuery(ctx context.Context, project, q string) ([]string, error) {
	return queryColumn[string](ctx, ix.db, "SELECT run_id FROM runs WHERE project = ? AND query = ? LIMIT 3", project, q)
}
