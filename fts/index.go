package fts

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"
	"golang.org/x/text/unicode/norm"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/vault"
)

// Index is the SQLite index of one vault. It is safe for concurrent use, and
// several processes may share one index file (WAL mode, immediate transactions).
type Index struct {
	v    *vault.Vault
	db   *sql.DB
	gate *gate        // the writers' gate (writegate.go)
	mmap *atomic.Bool // new connections map the file (connect.go)

	mu   sync.Mutex // guards snap and gen, and serializes refreshes in this process
	snap map[string]fileRow
	gen  string

	emb     embed.Embedder // nil: lexical only
	binary  bool           // unit_vec holds sign bits; unit_vectors the floats
	watch   *watcher       // set by Watch; guarded by mu
	memos   []tokenMemo    // the preparing workers'; guarded by mu (Refresh holds it)
	overlay OverlaySource  // the open Drafts; nil: none. Guarded by mu

	memMu   sync.Mutex  // guards mem, vecs and keepMem
	mem     *memIndex   // in-memory postings (memindex.go); nil: FTS5 scores
	vecs    *memVectors // in-memory sign bits (memvec.go); nil: sqlite-vec's k-NN
	keepMem bool        // KeepInMemory was called

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

// VectorsBehind reports whether some units may still lack a vector.
func (ix *Index) VectorsBehind() bool { return ix.emb != nil && ix.vectorsBehind.Load() }

// fileRow is what the freshness check remembers of an indexed file.
type fileRow struct {
	size, mod int64
	hash      string
}

// Open opens (creating if needed) the index of v at v.IndexPath() and applies
// the schema. It does not scan the vault; the first Refresh, Search or Load does.
func Open(ctx context.Context, v *vault.Vault) (*Index, error) {
	if err := os.MkdirAll(v.DataDir(), 0o755); err != nil {
		if CannotWrite(err) {
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
//     migrate) is deleted and created anew;
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
		if err := removeIndexFile(dbPath); err != nil {
			return nil, fmt.Errorf("remove stale index %s: %w", dbPath, err)
		}
	case damaged(err):
		if err := setAside(dbPath); err != nil {
			return nil, fmt.Errorf("the index %s is damaged and could not be set aside: %w", dbPath, err)
		}
	case CannotWrite(err):
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

// CannotWrite reports whether err says a file (the index, the outbox)
// cannot be written: a read-only file system, a full disk, no permission.
func CannotWrite(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrFull, sqlite3.ErrPerm, sqlite3.ErrIoErr:
			return true
		}
	}
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
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
		db.Close()
		return nil, errStaleFormat
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, translate(fmt.Errorf("index %s: %w", dbPath, err))
	}
	if have == "" {
		if _, err := db.ExecContext(ctx, "INSERT OR IGNORE INTO meta(key, value) VALUES('format', ?)", IndexFormat); err != nil {
			db.Close()
			return nil, translate(err)
		}
	}
	ix := &Index{v: v, db: db, gate: newGate(dbPath + "-writer"), mmap: mmap, changed: make(chan struct{}, 1), statSalt: readSalt(ctx, db)}
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

// Rebuild indexes the whole vault again: every file is read, parsed and
// written anew, files no longer there are dropped, and the Drafts' rows are
// written again. It never empties the index first: each batch replaces its
// files' rows in one transaction, so another process reading meanwhile sees
// every note, in its old or its new form — never a note missing (emptying
// first once made load and update answer "not found" and let a create take
// an existing path while a rebuild ran).
func (ix *Index) Rebuild(ctx context.Context, progress func(done, total int)) (RefreshStats, error) {
	if ix.readOnly != "" {
		return RefreshStats{ReadOnly: ix.readOnly}, vault.Errorf(vault.CodeInternal, "the index cannot be rebuilt: %s", ix.readOnly)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	defer func() { ix.memos = nil }() // as in Refresh
	var st RefreshStats
	if _, err := ix.refreshPass(ctx, progress, &st, true); err != nil {
		return st, err
	}
	if err := ix.refreshPasses(ctx, progress, &st); err != nil { // what changed while it ran
		return st, err
	}
	if err := ix.refreshOverlayForced(ctx, true); err != nil {
		return st, err
	}
	if err := ix.mergeFTS(ctx); err != nil {
		return st, err
	}
	return st, ix.freePages(ctx)
}

// freePages gives the index file's free pages back to the file system, in
// steps of freeStepPages, each its own transaction. A rebuild frees about
// what it writes (the old rows, the unmerged segments): on 100,000 generated
// notes the file had grown to 2.3 GB holding 1.1 GB. Only a file made with
// incremental auto-vacuum (newIndexFile, since this change) can; in an older
// one the free pages stay for later writes to reuse.
func (ix *Index) freePages(ctx context.Context) error {
	var mode int
	if err := ix.db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil || mode != 2 {
		return translate(err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var free int
		if err := ix.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return translate(err)
		}
		if free == 0 {
			return nil
		}
		if _, err := ix.execWrite(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", min(free, freeStepPages))); err != nil {
			return translate(err)
		}
	}
}

const freeStepPages = 4096 // 64 MiB of 16 KiB pages

// mergeFTS merges the full-text index's segments into one, in steps of
// mergeStepPages pages, each its own transaction (another process's write
// waits for one step, ~0.4 s on a large vault, not for the whole merge).
// A rebuild writes every unit again over the old rows, and FTS5 keeps the
// old entries and its deletion markers until their segments are merged: on
// 100,000 generated notes three rebuilds took units_fts_data from ~320 to
// 831 MB; the merge takes ~15 s there and brings it back to 315 MB (the
// pages freed are reused by later writes; the file does not shrink).
func (ix *Index) mergeFTS(ctx context.Context) error {
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return translate(err)
	}
	defer conn.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// FTS5: a 'merge' that did no work changes fewer than two rows.
		var before, after int64
		if err := conn.QueryRowContext(ctx, "SELECT total_changes()").Scan(&before); err != nil {
			return translate(err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO units_fts(units_fts, rank) VALUES('merge', ?)", -mergeStepPages); err != nil {
			return translate(err)
		}
		if err := conn.QueryRowContext(ctx, "SELECT total_changes()").Scan(&after); err != nil {
			return translate(err)
		}
		if after-before < 2 {
			return nil
		}
	}
}

// mergeStepPages is the work of one merge step (a negative 'merge' argument
// merges segments whatever their level).
const mergeStepPages = 2000

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

// snapshot returns the freshness snapshot, reloading it when another process
// (or a clear) changed the index. Callers hold ix.mu.
func (ix *Index) snapshot(ctx context.Context) (map[string]fileRow, error) {
	g, err := ix.generation(ctx)
	if err != nil {
		return nil, err
	}
	if ix.snap != nil && g == ix.gen {
		return ix.snap, nil
	}
	ix.snapshots++
	rows, err := ix.db.QueryContext(ctx, "SELECT path, size, mod_ns, content_hash FROM resources WHERE draft = ''")
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	snap := map[string]fileRow{}
	for rows.Next() {
		var p string
		var r fileRow
		if err := rows.Scan(&p, &r.size, &r.mod, &r.hash); err != nil {
			return nil, err
		}
		snap[p] = r
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	ix.snap, ix.gen = snap, g
	return snap, nil
}

// RefreshStats says what a freshness check found and did.
type RefreshStats struct {
	Files     int // memory files in the vault
	Added     int
	Updated   int
	Removed   int
	Touched   int // stat changed, bytes did not
	Skipped   int // files refused (binary, too large, unreadable)
	Problems  []vault.Problem
	Unchanged bool
	ReadOnly  string // why nothing could be recorded (Index.ReadOnly)
}

// change is one file's pending update.
type change struct {
	stat     vault.FileStat
	old      *fileRow
	res      *vault.Resource // parsed; nil when skipped or unchanged bytes
	hash     string
	skip     string // why the file is not indexed
	prepared []preparedUnit
	meta     string // the FTS meta column's text (metaText)
	gone     bool   // the file disappeared while being read
	force    bool   // parse and write it even if its bytes did not change (rebuild)
}

type preparedUnit struct {
	headingJSON, embedHash             string
	ftsPath, ftsTitle, ftsMeta, ftsHdr string
	ftsBody                            string
}

// batchSize bounds how many files one transaction writes (and memory holds).
const batchSize = 1000

// ftsAutomerge is FTS5's own default for merging its segments, which the
// index keeps. FTS5 writes a batch's terms as one new segment, and merges
// segments as they pile up (4 on a level). In a refresh of many batches (a
// cold index, a rebuild, a large pull) that merging was ~10 % of the
// writer's work on the critical path: 114,766 page writes became 92,186
// without it for 10,000 notes. So each such batch turns merging off for
// its own writing and back on before it commits: a crash cannot leave it
// off, FTS5's crisis merge still merges a level that reaches 16 segments,
// and later refreshes merge the rest a little at a time. Queries read
// more segments meanwhile (10 instead of 4 after 10,000 notes): 0.9 % more
// instructions for a set of 60 one-shot queries.
const ftsAutomerge = 4

// Refresh makes the index follow the vault: it stats every memory file, reads
// and hashes only those whose size or modification time changed, re-indexes
// only those whose bytes changed, and drops files that are gone. With nothing
// changed it costs one directory walk and one small query. progress, if not
// nil, is called as files are indexed.
func (ix *Index) Refresh(ctx context.Context, progress func(done, total int)) (RefreshStats, error) {
	if ix.readOnly != "" {
		return RefreshStats{Unchanged: true, ReadOnly: ix.readOnly}, nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// The preparing workers' memos serve one refresh: a long-running
	// process would otherwise keep them, and the tokens in them, for hours.
	defer func() { ix.memos = nil }()
	var st RefreshStats
	if err := ix.refreshPasses(ctx, progress, &st); err != nil {
		return st, err
	}
	return st, ix.refreshOverlay(ctx)
}

// refreshPasses runs refreshPass until nothing is left (at most twice: the
// second pass picks up files whose freed ids changed them).
func (ix *Index) refreshPasses(ctx context.Context, progress func(done, total int), st *RefreshStats) error {
	for pass := 0; pass < 2; pass++ {
		more, err := ix.refreshPass(ctx, progress, st, false)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// refreshPass indexes what changed since the snapshot; with force, every
// file in the vault (a rebuild: the watcher's short list is not used).
func (ix *Index) refreshPass(ctx context.Context, progress func(done, total int), st *RefreshStats, force bool) (bool, error) {
	v, err := ix.views(ctx, force)
	if err != nil {
		return false, err
	}
	if v.checked == nil {
		st.Files, st.Problems = len(v.files), v.problems
	} else {
		st.Files = len(v.snap)
	}
	if v.same {
		st.Unchanged = st.Added+st.Updated+st.Removed+st.Touched == 0
		return false, nil
	}
	todo, removed := v.changes(force)
	if len(todo) == 0 && len(removed) == 0 {
		st.Unchanged = st.Added+st.Updated+st.Removed+st.Touched == 0
		if v.drifted {
			// The vault is as the index has it, yet the digests differed:
			// some row's key is stale (written by a lore from before stat
			// keys, say). Writing every key again turns the fast path back on.
			ix.fillStatKeys(ctx, true)
		}
		return false, nil
	}
	if err := ix.write(ctx, todo, removed, st, progress); err != nil {
		return false, err
	}
	if st.Removed+st.Updated == 0 {
		return false, nil // only removals and updates can free an id
	}
	return ix.requeueFreedIDs(ctx)
}

// views are the index's view of the vault (snap) and the vault's own
// (files): every file, or with a watcher only the files it saw change, and
// checked says which paths those cover. same reports that a full walk
// found the vault as the index has it (digest.go); snap is then not read.
type views struct {
	snap     map[string]fileRow
	files    []vault.FileStat
	problems []vault.Problem
	checked  *covered // nil: files is the whole vault
	same     bool
	// drifted: the digests differed (or some key was unknown), so the
	// snapshot was read; if it then finds nothing to do, the keys are stale.
	drifted bool
}

// views reads the index's view (a query) and the vault's (a walk of its
// folders) at once: on 10,000 notes each is 5–30 ms of a one-shot command,
// and they share nothing. Without a snapshot in memory, the index's view is
// first its digest, and the snapshot is read only when the digests differ.
func (ix *Index) views(ctx context.Context, force bool) (views, error) {
	var v views
	var scanErr error
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		scanErr = safe.Call(func() (err error) {
			if force {
				v.files, v.problems, err = ix.v.Scan()
			} else {
				v.files, v.problems, v.checked, err = ix.changedFiles()
			}
			return err
		})
	}()
	if !force && ix.snap == nil {
		d, known, err := ix.indexDigest(ctx)
		<-scanned
		if err != nil {
			return v, err
		}
		if scanErr != nil {
			return v, scanErr
		}
		if known && v.checked == nil && walkDigest(ix.statSalt, v.files) == d {
			v.same = true
			return v, nil
		}
		v.drifted = v.checked == nil
		v.snap, err = ix.snapshot(ctx)
		return v, err
	}
	snap, err := ix.snapshot(ctx)
	<-scanned
	if err != nil {
		return v, err
	}
	v.snap = snap
	return v, scanErr
}

// changes compares the two views: the files to index (new, or whose size or
// mtime changed; every one when force) and the indexed paths that are gone.
func (v views) changes(force bool) (todo []*change, removed []string) {
	// A full walk names each file once; the watcher's folders and files
	// may name one twice (a watched folder and a file in it).
	var present map[string]bool
	if v.checked != nil {
		present = make(map[string]bool, len(v.files))
	}
	known := 0 // files the snapshot has
	for _, f := range v.files {
		if present != nil {
			if present[f.Path] {
				continue
			}
			present[f.Path] = true
		}
		old, ok := v.snap[f.Path]
		if ok {
			known++
		}
		if ok && old.size == f.Size && old.mod == f.ModNs && !force {
			continue
		}
		c := &change{stat: f, force: force}
		if ok {
			o := old
			c.old = &o
		}
		todo = append(todo, c)
	}
	if v.checked != nil {
		// Only what the watcher named can be gone; an idle watcher named
		// nothing, and the snapshot (every file of the vault) is not read:
		// it was a tenth of a millisecond per 10,000 notes, per query.
		return todo, v.checked.gone(v.snap, present)
	}
	if known == len(v.snap) {
		return todo, nil // every indexed file is still there
	}
	present = make(map[string]bool, len(v.files))
	for _, f := range v.files {
		present[f.Path] = true
	}
	for p := range v.snap {
		if !present[p] {
			removed = append(removed, p)
		}
	}
	return todo, removed
}

// write indexes todo and deletes removed, in batches: parsing (Go,
// parallel) of the next batch overlaps writing (SQLite, one writer) of the
// current one.
func (ix *Index) write(ctx context.Context, todo []*change, removed []string, st *RefreshStats, progress func(done, total int)) error {
	bulk := len(todo) > batchSize
	if bulk {
		defer enterBulkGC()()
	}
	batches := make(chan []*change, 1)
	go func() {
		defer close(batches)
		for start := 0; start < len(todo); start += batchSize {
			batch := todo[start:min(start+batchSize, len(todo))]
			ix.prepare(batch)
			select {
			case batches <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	done := 0
	first := true
	for batch := range batches {
		if err := ix.apply(ctx, batch, removed, st, bulk); err != nil {
			for range batches { // let the producer finish
			}
			return err
		}
		removed, first = nil, false
		done += len(batch)
		for _, c := range batch { // written: let the parsed text go
			c.res, c.prepared, c.meta = nil, nil, ""
		}
		if progress != nil {
			progress(done, len(todo))
		}
	}
	if first && len(removed) > 0 { // deletions only
		if err := ix.apply(ctx, nil, removed, st, false); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// memoBatch is the smallest batch prepared through memos.
const memoBatch = 64

// prepare reads, hashes, parses and tokenizes a batch in parallel.
func (ix *Index) prepare(batch []*change) {
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	for len(batch) >= memoBatch && len(ix.memos) < workers {
		ix.memos = append(ix.memos, newTokenMemo())
	}
	// Workers take the next file by counting, not from a channel: a
	// channel hand-off a file woke and parked goroutines ten thousand times
	// a cold index.
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		var memo tokenMemo // none for a few files: it costs more than it saves
		if w < len(ix.memos) {
			memo = ix.memos[w]
		}
		go func(memo tokenMemo) {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(batch)); i = next.Add(1) - 1 {
				ix.prepareOne(batch[i], memo)
			}
		}(memo)
	}
	wg.Wait()
}

func (ix *Index) prepareOne(c *change, memo tokenMemo) {
	data, err := ix.v.ReadFile(c.stat.FSPath)
	if err != nil {
		if vault.ErrorCode(err) == vault.CodeNotFound {
			c.gone = true
			return
		}
		c.skip = vault.Message(err)
		c.hash = "sha256:unread"
		return
	}
	c.stat.Size = int64(len(data))
	c.hash = vault.HashBytes(data)
	if c.old != nil && c.old.hash == c.hash && !c.force {
		return // touched only
	}
	prepareData(c, data, memo)
}

// prepareData parses and tokenizes one file's bytes into c. A file (or a
// Draft's file) that makes lore panic is recorded as unreadable, as a file
// that cannot be parsed is: it never stops the others being indexed.
func prepareData(c *change, data []byte, memo tokenMemo) {
	defer func() {
		if v := recover(); v != nil {
			c.res, c.prepared, c.meta = nil, nil, ""
			c.skip = fmt.Sprintf("%s could not be indexed (a bug in lore: %v); it is left out until it changes", c.stat.Path, v)
		}
	}()
	r, err := parseNote(c.stat.Path, data)
	if err != nil {
		c.skip = vault.Message(err)
		return
	}
	c.res = r
	c.meta = metaText(r)
	pathTerms, titleTerms, metaTerms := memo.indexText(r.Path), memo.indexText(r.Title), memo.indexText(c.meta)
	c.prepared = make([]preparedUnit, len(r.Units))
	for i, u := range r.Units {
		hp, _ := json.Marshal(u.HeadingPath)
		c.prepared[i] = preparedUnit{
			headingJSON: string(hp),
			embedHash:   embedHash(r.Title, u.HeadingPath, u.ContentHash),
			ftsPath:     pathTerms, ftsTitle: titleTerms, ftsMeta: metaTerms,
			ftsHdr:  memo.indexText(strings.Join(u.HeadingPath, " ")),
			ftsBody: memo.indexText(u.Content),
		}
	}
}

// parseNote is vault.Parse; containment tests make it panic on one file.
var parseNote = vault.Parse

// metaText is the text of a resource's FTS meta column.
func metaText(r *vault.Resource) string {
	return strings.Join(append(append([]string{r.Description}, r.Front.Tags...), r.Front.Keywords...), " ")
}

// apply writes one batch in one transaction and bumps the generation. bulk
// says the batch is one of many in this refresh (see ftsAutomerge).
func (ix *Index) apply(ctx context.Context, batch []*change, removed []string, st *RefreshStats, bulk bool) error {
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx.Tx)
	if err != nil {
		return err
	}
	defer w.close()
	w.salt = ix.statSalt
	if bulk {
		if err := w.exec("INSERT INTO units_fts(units_fts, rank) VALUES('automerge', 0)"); err != nil {
			return err
		}
	}
	// Every delete comes before the first insert. A statement that can
	// reach the FTS table through a trigger opens a statement savepoint, and
	// FTS5 writes its pending terms out as a new segment at every savepoint:
	// deletes interleaved with inserts made one tiny segment per file (and
	// the merging of thousands of them was most of a cold index's time).
	for _, p := range removed {
		if _, err := w.run(w.delRes, p); err != nil {
			return err
		}
		st.Removed++
	}
	for _, c := range batch {
		if c.gone || c.res != nil || c.skip != "" {
			if _, err := w.run(w.delRes, c.stat.Path); err != nil {
				return err
			}
		}
	}
	if err := w.beginInserts(); err != nil {
		return err
	}
	if err := writeBatch(ctx, w, batch, st); err != nil {
		return err
	}
	if err := w.finishInserts(); err != nil {
		return err
	}
	if bulk { // the terms are written (finishInserts): merging is back on before the commit
		if err := w.exec("INSERT INTO units_fts(units_fts, rank) VALUES('automerge', ?)", ftsAutomerge); err != nil {
			return err
		}
	}
	gen, err := bumpGeneration(ctx, tx.Tx)
	if err != nil {
		return err
	}
	if err := translate(tx.Commit()); err != nil {
		return err
	}
	if len(batch) > 0 {
		ix.NotifyChanged()
	}
	ix.keepSnapshot(gen, batch, removed)
	return nil
}

// writeBatch writes a batch's files after their old rows are deleted:
// unchanged bytes only touch the size and mtime, anything else is upserted
// (a file that cannot be read as a note is kept with its problem).
func writeBatch(ctx context.Context, w *writer, batch []*change, st *RefreshStats) error {
	for _, c := range batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case c.gone:
			if c.old != nil {
				st.Removed++
			}
		case c.res == nil && c.skip == "":
			if err := w.exec("UPDATE resources SET size = ?, mod_ns = ?, stat_key = ? WHERE path = ? AND draft = ''", c.stat.Size, c.stat.ModNs, w.statKey(c), c.stat.Path); err != nil {
				return err
			}
			st.Touched++
		default:
			if err := w.upsert(c); err != nil {
				return err
			}
			switch {
			case c.skip != "":
				st.Skipped++
			case c.old == nil:
				st.Added++
			default:
				st.Updated++
			}
		}
	}
	return nil
}

// keepSnapshot brings the freshness snapshot up to date with a batch just
// committed as generation gen, in place, when nobody else wrote since it was
// read; otherwise it drops it, to be read again.
func (ix *Index) keepSnapshot(gen int64, batch []*change, removed []string) {
	if ix.snap == nil || strconv.FormatInt(gen-1, 10) != ix.gen {
		ix.snap = nil
		return
	}
	for _, p := range removed {
		delete(ix.snap, p)
	}
	for _, c := range batch {
		switch {
		case c.gone:
			delete(ix.snap, c.stat.Path)
		case c.res == nil && c.skip == "":
			ix.snap[c.stat.Path] = fileRow{size: c.stat.Size, mod: c.stat.ModNs, hash: c.old.hash}
		default:
			ix.snap[c.stat.Path] = fileRow{size: c.stat.Size, mod: c.stat.ModNs, hash: c.hash}
		}
	}
	ix.gen = strconv.FormatInt(gen, 10)
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// titleKey is the form titles are matched in by the exact stage.
func titleKey(t string) string {
	return strings.ToLower(norm.NFC.String(strings.TrimSpace(t)))
}
