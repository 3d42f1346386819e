package fts

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/sqlerr"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Index is the SQLite index of one vault. It is safe for concurrent use, and
// several processes may share one index file (WAL mode, immediate transactions).
type Index struct {
	v    *vault.Vault
	db   *sql.DB
	path string       // the database file ("" when opened read-only)
	gate *gate        // the writers' gate (writegate.go)
	mmap *atomic.Bool // new connections map the file (connect.go)

	mu   sync.Mutex // guards snap and gen, and serializes refreshes in this process
	snap map[string]fileRow
	gen  string

	emb     embed.Embedder  // nil: lexical only
	binary  bool            // unit_vec holds sign bits; unit_vectors the floats
	watch   *watcher        // set by Watch; guarded by mu
	memos   []tokenize.Memo // the preparing workers'; guarded by mu (Refresh holds it)
	overlay OverlaySource   // the open Drafts; nil: none. Guarded by mu
	bulk    BulkMemory      // told of refreshes of many batches; nil: none
	// cold is the copy a cold index fills as its batches commit, and
	// coldDone the one filled, saved when the refresh ends (coldcopy.go).
	// Guarded by mu.
	cold, coldDone *coldCopy

	memMu       sync.Mutex  // guards mem, vecs and keepMem
	mem         *memCopy    // in-memory postings (resident.go); nil: FTS5 scores
	vecs        *memVectors // in-memory sign bits (memvec.go); nil: sqlite-vec's k-NN
	keepMem     bool        // KeepInMemory was called
	memFromCopy bool        // mem was mapped from a saved copy (memindex.Load)

	stateGC atomic.Int64 // when this process last deleted expired activation states (Unix seconds)

	statSalt  uint64 // meta stat_salt (digest.go)
	snapshots int    // snapshots read from the index (tests count them)

	// changed is signalled (without blocking) when the index may have new
	// units to embed: a refresh or an overlay wrote rows, the watcher saw an
	// edit, or a Draft was stored. A long-running server embeds on it.
	changed chan struct{}
	// vectorsBehind is true while some units may lack a vector (until an
	// EmbedPending run finds none left).
	vectorsBehind atomic.Bool
	// readOnly says why the index was opened read-only (openReadOnly);
	// "" when it can be written.
	readOnly string
}

// NotifyChanged tells a long-running process that the index may have new
// units to embed (package drafts calls it after a store).
func (ix *Index) NotifyChanged() {
	ix.vectorsBehind.Store(true)
	select {
	case ix.changed <- struct{}{}:
	default:
	}
}

// Changes is signalled after NotifyChanged (at most one signal waits).
func (ix *Index) Changes() <-chan struct{} { return ix.changed }

// vectorsAreBehind reports whether some units may still lack a vector.
func (ix *Index) vectorsAreBehind() bool { return ix.emb != nil && ix.vectorsBehind.Load() }

// fileRow is what the freshness check remembers of an indexed file.
type fileRow struct {
	size, mod int64
	hash      string
}

// Open opens (creating if needed) the index of v at v.IndexPath() and applies
// the schema. It does not scan the vault; the first Refresh, Search or Load does.
func Open(ctx context.Context, v *vault.Vault) (*Index, error) {
	if err := os.MkdirAll(v.DataDir(), 0o755); err != nil {
		if sqlerr.CannotWrite(err) {
			return openReadOnly(ctx, v, v.IndexPath(), err)
		}
		return nil, fmt.Errorf("create %s: %w", v.DataDir(), err)
	}
	return OpenFile(ctx, v, v.IndexPath())
}

// OpenFile is Open with an explicit database path. The index is derived
// data, so an index lore cannot use is never a dead end:
//
//   - one written by another index format (or whose schema does not
//     migrate) is deleted and created anew, or, when its vectors are of the
//     kind this lore makes (vectorsFormat), moved aside for the first
//     embedding pass to take them from (carryover.go);
//   - a damaged one (not a database, cut short, or failing as corrupt
//     while it opens) is set aside as index.db.damaged and created anew;
//
// and the next Refresh rebuilds it from the vault. One that cannot be
// written (a read-only file system, a full disk) is opened read-only
// instead, so reads go on: ReadOnly says why, and refreshes record
// nothing.
func OpenFile(ctx context.Context, v *vault.Vault, dbPath string) (*Index, error) {
	err := checkFile(dbPath)
	var ix *Index
	if err == nil {
		ix, err = openFile(ctx, v, dbPath)
	}
	switch {
	case err == nil:
		return ix, nil
	case errors.Is(err, errStaleFormat):
		if err := replaceStale(dbPath, errors.Is(err, errStaleVectors)); err != nil {
			return nil, fmt.Errorf("remove stale index %s: %w", dbPath, err)
		}
	case damaged(err):
		if err := setAside(dbPath); err != nil {
			return nil, fmt.Errorf("the index %s is damaged and could not be set aside: %w", dbPath, err)
		}
	case sqlerr.CannotWrite(err):
		return openReadOnly(ctx, v, dbPath, err)
	default:
		return nil, err
	}
	return openFile(ctx, v, dbPath)
}

func removeIndexFile(dbPath string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// setAside moves a damaged index (and its WAL) to index.db.damaged, where a
// person can look at it, replacing one set aside before.
func setAside(dbPath string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(dbPath+suffix, dbPath+".damaged"+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// errDamaged: the index file is not a database lore can read.
var errDamaged = errors.New("the index file is damaged")

// damaged reports whether err says the index file is damaged.
func damaged(err error) bool {
	var se sqlite3.Error
	return errors.Is(err, errDamaged) || errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) ||
		strings.Contains(err.Error(), "the index is damaged")
}

// checkFile finds, without SQLite, an index file that cannot be a whole
// database: bytes that are not SQLite's (overwritten with garbage), or a
// file shorter than its header says with no WAL to make up the rest (cut
// short). An empty or missing file is fine (it is created).
func checkFile(dbPath string) error {
	f, err := os.Open(dbPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil
	}
	var h [100]byte
	if n, _ := io.ReadFull(f, h[:]); n < len(h) || string(h[:16]) != "SQLite format 3\x00" {
		return errDamaged
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	valid := binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if wal, err := os.Stat(dbPath + "-wal"); err == nil && wal.Size() > 0 {
		return nil // the WAL may hold what the file does not yet
	}
	if valid && pages > 0 && st.Size() < pages*pageSize {
		return errDamaged
	}
	return nil
}

// openReadOnly opens an index that cannot be written, for reading only
// (SQLite's immutable mode: no lock or WAL file is made). why is the write
// error that made it so.
func openReadOnly(ctx context.Context, v *vault.Vault, dbPath string, why error) (*Index, error) {
	if st, err := os.Stat(dbPath); err != nil || st.Size() == 0 {
		return nil, fmt.Errorf("index %s cannot be created (%v), and there is none to read", dbPath, why)
	}
	dsn := "file:" + dbPath + "?mode=ro&immutable=1&_foreign_keys=on&_cache_size=-16384"
	mmap := new(atomic.Bool)
	db := sql.OpenDB(&connector{dsn: dsn, mmap: mmap})
	db.SetMaxIdleConns(3)
	var have string
	if err := db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='format'").Scan(&have); err != nil || have != IndexFormat {
		db.Close()
		return nil, fmt.Errorf("index %s cannot be written (%v), and it cannot be read as this lore's index either", dbPath, why)
	}
	ix := &Index{v: v, db: db, gate: newGate(dbPath + "-writer"), mmap: mmap, changed: make(chan struct{}, 1), statSalt: readSalt(ctx, db),
		readOnly: fmt.Sprintf("the index cannot be written (%v): lore reads it as it is, so edits since it was last written are not seen, and nothing lore stores or records is kept", why)}
	return ix, nil
}

// ReadOnly says why the index was opened read-only ("" when it was not).
func (ix *Index) ReadOnly() string { return ix.readOnly }

var errStaleFormat = errors.New("index of another format")

// errStaleVectors is errStaleFormat for an index whose vectors this lore
// can use (carryover.go).
var errStaleVectors = fmt.Errorf("%w, with vectors of this one's kind", errStaleFormat)

// indexPageSize is the page size of a new index file. At SQLite's default
// of 4 KiB, a cold index of 10,000 notes made 92,202 writes and 31,131 reads
// (WAL frames, two writes each, and their checkpoints); at 16 KiB it makes
// 22,506 and 7,047 (`strace -c lore index --no-embed`). A file in WAL mode
// keeps its page size, so a new file gets it first (newIndexFile); an older
// index keeps the page size it has.
const indexPageSize = 16384

// newIndexFile creates dbPath, when it does not exist or is empty, with
// indexPageSize pages, incremental auto-vacuum (see freePages) and in WAL
// mode.
func newIndexFile(ctx context.Context, dbPath string) error {
	if fi, err := os.Stat(dbPath); err == nil && fi.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("create index %s: %w", dbPath, err)
	}
	defer db.Close()
	// One statement after the other on one connection (a pool could run
	// them on two).
	conn, err := db.Conn(ctx)
	if err != nil {
		return translate(fmt.Errorf("create index %s: %w", dbPath, err))
	}
	defer conn.Close()
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", indexPageSize), "PRAGMA auto_vacuum = INCREMENTAL", "PRAGMA journal_mode = WAL"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return translate(fmt.Errorf("create index %s: %w", dbPath, err))
		}
	}
	return nil
}

func openFile(ctx context.Context, v *vault.Vault, dbPath string) (*Index, error) {
	if err := newIndexFile(ctx, dbPath); err != nil {
		return nil, err
	}
	dsn := "file:" + dbPath + "?_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL&_foreign_keys=on&_txlock=immediate&_cache_size=-16384"
	mmap := new(atomic.Bool) // off until MapForQueries (connect.go)
	db := sql.OpenDB(&connector{dsn: dsn, mmap: mmap})
	// Each connection has its own page cache (16 MiB); a long-running server
	// keeps a few of them, not one per query it ever ran at once.
	db.SetMaxIdleConns(3)
	var have string
	db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='format'").Scan(&have)
	var tables int
	db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(&tables)
	if tables > 0 && have != IndexFormat {
		keep := holdsVectors(ctx, db)
		db.Close()
		if keep {
			return nil, errStaleVectors
		}
		return nil, errStaleFormat
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, translate(fmt.Errorf("index %s: %w", dbPath, err))
	}
	// A file of this format holds vectors of this lore's kind: an index
	// made before the key was (lore-19) gets it once.
	var vf string
	db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='vectors_format'").Scan(&vf)
	if have == "" || vf == "" {
		if _, err := db.ExecContext(ctx, "INSERT OR IGNORE INTO meta(key, value) VALUES('format', ?), ('vectors_format', ?)", IndexFormat, vectorsFormat); err != nil {
			db.Close()
			return nil, translate(err)
		}
	}
	ix := &Index{v: v, db: db, path: dbPath, gate: newGate(dbPath + "-writer"), mmap: mmap, changed: make(chan struct{}, 1), statSalt: readSalt(ctx, db)}
	ix.vectorsBehind.Store(true)
	ix.fillStatKeys(ctx, false) // once, for an index made before migration 0007; failing only slows freshness
	return ix, nil
}

// Close closes the database.
func (ix *Index) Close() error {
	ix.gate.close()
	return ix.db.Close()
}

// Vault returns the vault the index follows.
func (ix *Index) Vault() *vault.Vault { return ix.v }

// translate maps SQLite driver errors to lore's error codes.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return errBusy(err.Error())
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return &vault.Error{Code: vault.CodeInternal, Message: "the index is damaged; run `lore index --rebuild` (it is rebuilt from the vault, nothing is lost): " + err.Error()}
		}
	}
	return err
}

// errBusy is the answer when another process kept the index too long to
// write to it (SQLite's lock, or the writers' gate); why says which.
func errBusy(why string) error {
	return &vault.Error{Code: vault.CodeBusy, Message: "the index is busy (another lore process holds it too long; try again): " + why}
}

// bumpGeneration advances the index's change counter inside tx and returns
// its new value. Every committed change to resources calls it once.
func bumpGeneration(ctx context.Context, tx *sql.Tx) (int64, error) {
	var gen int64
	err := tx.QueryRowContext(ctx, `INSERT INTO meta(key, value) VALUES('generation', '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING CAST(value AS INTEGER)`).Scan(&gen)
	if err != nil {
		return 0, translate(err)
	}
	// Keep the newest unitLogKeep entries of unit_log; a process further
	// behind builds its in-memory postings again.
	_, err = tx.ExecContext(ctx, "DELETE FROM unit_log WHERE seq <= (SELECT MAX(seq) FROM unit_log) - ?", unitLogKeep)
	return gen, translate(err)
}

const unitLogKeep = 200_000

// queryColumn returns the one column of every row a query answers.
func queryColumn[T any](ctx context.Context, db *sql.DB, q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, translate(rows.Err())
}

// execAll runs statements in order inside tx, stopping at the first error.
func execAll(ctx context.Context, tx *sql.Tx, qs ...string) error {
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return translate(err)
		}
	}
	return nil
}

// generation reads the index's change counter, which every committed change bumps.
func (ix *Index) generation(ctx context.Context) (string, error) {
	var g string
	err := ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='generation'").Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return "0", nil
	}
	return g, translate(err)
}
