package fts

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A retrieval run's record is stored compressed and read back byte for
// byte; a record written before records were compressed (JSON text) reads
// as it was; a stored record that does not decompress is an error naming
// the run, not garbage handed on as JSON.
func TestRuns_RecordsStoredCompressed(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	ctx := context.Background()
	r := tv.Ix.Records()
	var sb strings.Builder
	sb.WriteString(`{"query":"fix the sync retry budget","ranked":[`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"rank":%d,"unit_key":"mem_%04d#sync-retries","path":"notes/%04d.md","bm25_rank":%d,"bm25_score":%.4f,"fused":%.6f,"outcome":"cut:weak"}`, i+1, i*7, i*7, i+1, 12.5-float64(i)/10, 0.9-float64(i)/200)
	}
	sb.WriteString(`]}`)
	record := []byte(sb.String())
	if err := r.SaveRun(ctx, Run{RunSummary: RunSummary{RunID: "run_new", CreatedAt: "2026-12-01T00:00:01Z"}, Record: record}); err != nil {
		t.Fatal(err)
	}
	var stored []byte
	if err := tv.Ix.db.QueryRowContext(ctx, "SELECT record FROM runs WHERE run_id = 'run_new'").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(stored, zstdMagic) || len(stored)*4 > len(record) {
		t.Errorf("stored record: %d bytes for %d of JSON, starting % x; want a zstd frame under a quarter of it", len(stored), len(record), stored[:min(4, len(stored))])
	}
	if got, err := r.Run(ctx, "run_new"); err != nil || !bytes.Equal(got, record) {
		t.Errorf("Run(run_new) = %d bytes, %v; want the %d bytes stored", len(got), err, len(record))
	}

	old := `{"query":"written by an older lore"}`
	if _, err := tv.Ix.db.ExecContext(ctx, `INSERT INTO runs(run_id, created_at, project, query, index_revision, total_us, record)
		VALUES ('run_old', '2026-11-01T00:00:00Z', '', 'q', '', 1, ?)`, old); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Run(ctx, "run_old"); err != nil || string(got) != old {
		t.Errorf("Run(run_old) = %q, %v; want the JSON text as stored", got, err)
	}

	broken := append(append([]byte{}, zstdMagic...), "not a frame"...)
	if _, err := tv.Ix.db.ExecContext(ctx, `INSERT INTO runs(run_id, created_at, project, query, index_revision, total_us, record)
		VALUES ('run_broken', '2026-11-01T00:00:00Z', '', 'q', '', 1, ?)`, broken); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Run(ctx, "run_broken"); err == nil || !strings.Contains(err.Error(), "run_broken") {
		t.Errorf("Run(run_broken) = %q, %v; want an error naming the run", got, err)
	}
	if _, err := r.Run(ctx, "run_missing"); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("Run(run_missing): %v, want not found", err)
	}
}
