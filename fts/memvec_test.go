package fts

import (
	"context"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/internal/testvault"
)

// The in-memory first pass finds exactly the vectors a brute-force Hamming
// scan of sqlite-vec's own quantized bits finds, and the vector stage built
// on it answers as the SQL one when the first pass keeps everything.
func TestMemVectorsMatchSQL(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	ctx := context.Background()
	e := &embed.HashEmbedder{Dims: 64}
	if err := tv.Ix.Vectors().Use(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.GenerateVault(tv.Root, 60, 5); err != nil {
		t.Fatal(err)
	}
	// Copies share one vector: their units tie, and unit_key orders them.
	for _, p := range []string{"copies/one.md", "copies/two.md", "projects/api/copy.md", "projects/web/copy.md"} {
		tv.Write(p, "# Release checklist\n\nTag, build, deploy, then watch the error rate.\n\n## Rollback\n\nRevert the tag.\n")
	}
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// sqlite-vec's bits, read back from vec0, for the brute force.
	type vecRow struct {
		id   int64
		bits []byte
	}
	var all []vecRow
	rows, err := tv.Ix.db.QueryContext(ctx, "SELECT rowid, embedding FROM unit_vec")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r vecRow
		if err := rows.Scan(&r.id, &r.bits); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	if len(all) < 300 {
		t.Fatalf("only %d vectors", len(all))
	}

	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	mv, err := tv.Ix.memVectorsFor(ctx)
	if err != nil || mv == nil {
		t.Fatalf("in-memory vectors: %v %v", mv, err)
	}
	qs := append(memQueries()[:60], "Release checklist\nTag, build, deploy, then watch the error rate.")
	for _, q := range qs {
		qv, _ := e.Embed(ctx, []string{q})
		var qbits []byte
		for d := 0; d < 64; d += 8 {
			var b byte
			for k := 0; k < 8; k++ {
				if qv[0][d+k] > 0 {
					b |= 1 << k
				}
			}
			qbits = append(qbits, b)
		}
		type cand struct {
			dist int
			id   int64
		}
		var want []cand
		for _, r := range all {
			d := 0
			for i := range r.bits {
				d += bits.OnesCount8(r.bits[i] ^ qbits[i])
			}
			want = append(want, cand{d, r.id})
		}
		sort.Slice(want, func(i, j int) bool {
			return want[i].dist < want[j].dist || want[i].dist == want[j].dist && want[i].id < want[j].id
		})
		got := mv.nearest(qv[0], 50)
		for i, id := range got {
			if id != want[i].id {
				t.Fatalf("%q: neighbour %d is %d, brute force says %d", q, i, id, want[i].id)
			}
		}

		// Keeping every vector in the first pass, both stages rescore all
		// of them with sqlite-vec's cosine: the same answer.
		for _, project := range []string{"", "api", "web"} {
			for _, k := range []int{10, len(all)} {
				memHits, err := tv.Ix.Lookups().Nearest(ctx, qv[0], project, k)
				if err != nil {
					t.Fatal(err)
				}
				if k < len(all) {
					if len(memHits) == 0 {
						t.Fatalf("%q: nothing found in memory", q)
					}
					continue // the first passes may differ at ties of the cut
				}
				tv.Ix.memMu.Lock()
				tv.Ix.keepMem = false
				tv.Ix.memMu.Unlock()
				sqlHits, err := tv.Ix.Lookups().Nearest(ctx, qv[0], project, k)
				tv.Ix.memMu.Lock()
				tv.Ix.keepMem = true
				tv.Ix.memMu.Unlock()
				if err != nil {
					t.Fatal(err)
				}
				if len(memHits) != len(sqlHits) {
					t.Fatalf("%q, project %q: %d hits in memory, %d by SQL", q, project, len(memHits), len(sqlHits))
				}
				for i := range sqlHits {
					if memHits[i] != sqlHits[i] {
						t.Fatalf("%q, project %q: hit %d: %+v in memory, %+v by SQL", q, project, i, memHits[i], sqlHits[i])
					}
				}
			}
		}
	}

	// Vectors stored and dropped by another process arrive through vec_log.
	other, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Vectors().Use(ctx, e); err != nil {
		t.Fatal(err)
	}
	tv.Write("fresh.md", "# Fresh\n\nzebra quagga okapi\n")
	if err := removeFile(tv, "bench/000/note-000001.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tv.Ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM unit_vectors").Scan(&n); err != nil {
		t.Fatal(err)
	}
	mv, _ = tv.Ix.memVectorsFor(ctx)
	if live := mv.set.Len(); live != n {
		t.Fatalf("in memory %d vectors, the index %d", live, n)
	}
}

func removeFile(tv *testVault, p string) error {
	return os.Remove(filepath.Join(tv.Root, filepath.FromSlash(p)))
}
