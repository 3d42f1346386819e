package fts

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/lore-memory/lore/vault"
)

// Records are what the retrieval pipeline writes back into the index:
// retrieval runs (table runs) and activation states (table
// activation_states). They are not derived from the vault; deleting the index
// deletes them.
type Records struct{ ix *Index }

// Records returns the index's records.
func (ix *Index) Records() Records { return Records{ix} }

// Run is a retrieval run as stored: its summary and its whole record (JSON).
type Run struct {
	RunSummary
	IndexRevision string
	Record        []byte
}

// A run's record is kept compressed (zstd, as a blob): its JSON names every
// stage's fields once for each of up to a hundred candidates, and MaxRuns
// uncompressed records would have taken hundreds of MB of index.db. zstd's
// default level compresses nearly as well as its best at a quarter of the
// time (the sizes and times: docs/BENCHMARKS.md, "One warm lore").
// Records written before are JSON text and are read as they are.
var runCodec struct {
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	err  error
}

func runCoders() (*zstd.Encoder, *zstd.Decoder, error) {
	runCodec.once.Do(func() {
		runCodec.enc, runCodec.err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
		if runCodec.err == nil {
			runCodec.dec, runCodec.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
		}
	})
	return runCodec.enc, runCodec.dec, runCodec.err
}

// SaveRun stores a retrieval run, keeping the newest MaxRuns.
func (r Records) SaveRun(ctx context.Context, run Run) error {
	enc, _, err := runCoders()
	if err != nil {
		return fmt.Errorf("record retrieval run: %w", err)
	}
	record := enc.EncodeAll(run.Record, nil)
	_, err = r.ix.execWrite(ctx, `INSERT INTO runs(run_id, created_at, project, query, index_revision, total_us, record)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, run.RunID, run.CreatedAt, run.Project, run.Query, run.IndexRevision, run.TotalUS, record)
	if err != nil {
		return translate(fmt.Errorf("record retrieval run: %w", err))
	}
	// Trimming now and then (a run id ends in random hex: 1 in 256) keeps
	// inserts cheap; a failed trim leaves old runs a while longer.
	if run.RunID[len(run.RunID)-2:] == "00" {
		r.ix.execWrite(ctx, `DELETE FROM runs WHERE created_at <
			(SELECT created_at FROM runs ORDER BY created_at DESC LIMIT 1 OFFSET ?)`, MaxRuns)
	}
	return nil
}

// zstdMagic begins every zstd frame; a JSON record begins with '{'.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

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
func (r Records) Runs(ctx context.Context, limit int) ([]RunSummary, error) {
	rows, err := r.ix.db.QueryContext(ctx, `SELECT run_id, created_at, project, query, total_us FROM runs
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
func (r Records) Run(ctx context.Context, id string) (json.RawMessage, error) {
	var rec []byte
	err := r.ix.db.QueryRowContext(ctx, "SELECT record FROM runs WHERE run_id = ?", id).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, vault.Errorf(vault.CodeNotFound, "no retrieval run %s", id)
	}
	if err != nil {
		return nil, translate(err)
	}
	if !bytes.HasPrefix(rec, zstdMagic) {
		return json.RawMessage(rec), nil // written before records were compressed
	}
	_, dec, err := runCoders()
	if err == nil {
		rec, err = dec.DecodeAll(rec, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("retrieval run %s: its stored record does not decompress: %w", id, err)
	}
	return json.RawMessage(rec), nil
}

// RunsByQuery returns the ids of a project's runs whose query is exactly q
// (for joining old agent logs that carry no run_id).
func (r Records) RunsByQuery(ctx context.Context, project, q string) ([]string, error) {
	return queryColumn[string](ctx, r.ix.db, "SELECT run_id FROM runs WHERE project = ? AND query = ? LIMIT 3", project, q)
}

// ErrNoState is State's answer for an id that is not kept (never saved, or
// expired).
var ErrNoState = errors.New("no such activation state")

// SaveState keeps an activation state's entries under id, used now; saving
// again refreshes the time. States unused for retention are deleted, at most
// once a minute by each process.
func (r Records) SaveState(ctx context.Context, id, entries []byte, now time.Time, retention time.Duration) error {
	ix := r.ix
	if _, err := ix.execWrite(ctx, `INSERT INTO activation_states(id, used, entries) VALUES(?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET used = excluded.used`, id, now.Unix(), entries); err != nil {
		return translate(err)
	}
	if last := ix.stateGC.Load(); now.Unix()-last >= 60 && ix.stateGC.CompareAndSwap(last, now.Unix()) {
		// Expiry is housekeeping: a failure leaves old states a while longer.
		ix.execWrite(ctx, `DELETE FROM activation_states WHERE used < ?`, now.Add(-retention).Unix())
	}
	return nil
}

// State returns the entries kept under id, or ErrNoState.
func (r Records) State(ctx context.Context, id []byte) ([]byte, error) {
	var blob []byte
	err := r.ix.db.QueryRowContext(ctx, `SELECT entries FROM activation_states WHERE id = ?`, id).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoState
	}
	return blob, translate(err)
}
