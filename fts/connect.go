package fts

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
	"sync/atomic"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// A one-shot command reads a few hundred pages of the index it has never
// read before: the FTS5 lists of the query's tokens, the rows of the
// candidates, their links. Through SQLite's page cache each is a read()
// system call and a copy; mapped (PRAGMA mmap_size), a read of the page
// cache's memory: a first activate's links query took a fraction of the
// time mapped (docs/BENCHMARKS.md, "One warm lore"). So a one-shot command that only queries (lore search,
// activate, load) maps the index file (MapForQueries); nothing else does. A
// command that writes the whole index would hold every page it touched in
// its resident memory (a mapped rebuild peaked far higher: the same
// section), and a long-running process, which ranks from its in-memory
// copy, would keep the pages its unit reads touched for as long as it runs,
// where SQLite's page cache holds at most its 16 MiB a connection
// (KeepInMemory turns the mapping off again). Mapping reads only; writes
// still go through write(), and SQLite maps no further than the file's size
// at the start of each read transaction.
const mmapBytes = 1 << 30

var mmapPragma = fmt.Sprintf("PRAGMA mmap_size = %d", mmapBytes)

// connector opens the index's connections, mapped while mmap is set.
type connector struct {
	dsn  string
	mmap *atomic.Bool
}

var sqliteDriver = &sqlite3.SQLiteDriver{}

// withVec registers sqlite-vec with SQLite for every connection opened after
// it: done before the first connection rather than at package init, where
// it initialized SQLite in every process before main, including
// the commands a warm server answers without opening the index.
var withVec sync.Once

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	withVec.Do(vec.Auto)
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil || !c.mmap.Load() {
		return conn, err
	}
	if _, err := conn.(*sqlite3.SQLiteConn).Exec(mmapPragma, nil); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func (c *connector) Driver() driver.Driver { return sqliteDriver }

// mapForQueries makes the index's connections map the index file from now
// on, for a one-shot command that only queries (see above). The connection
// Open used, idle now, is mapped too: closing it for a new one cost more
// than mapping it (docs/BENCHMARKS.md, "One warm lore").
func (ix *Index) mapForQueries(ctx context.Context) {
	ix.mmap.Store(true)
	if c, err := ix.db.Conn(ctx); err == nil {
		c.ExecContext(ctx, mmapPragma) // failing, it reads through the page cache
		c.Close()
	}
}

// unmapConnections makes the connections opened from now on read through
// SQLite's page cache and closes the idle ones, keeping at most one (see
// KeepInMemory). Only a process that called MapForQueries has mapped ones;
// no long-running process does.
func (ix *Index) unmapConnections() {
	ix.mmap.Store(false)
	ix.db.SetMaxIdleConns(0)
	ix.db.SetMaxIdleConns(1)
}
