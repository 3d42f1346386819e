package fts

// BulkMemory is told of each refresh of many batches (a cold index, a
// rebuild, a large pull), which makes garbage as it goes (~75 KB a note:
// the parsers' trees, units, terms): Start when it begins, returning what
// to call when it ends, and Batch after each batch it commits. The
// process's collector is the program's to tune, not the index's: lore's
// command (package main, bulkgc.go) raises its target there and follows the
// live heap. Nil, the default, changes nothing.
type BulkMemory interface {
	Start() (end func())
	Batch()
}

// UseBulkMemory makes the index tell m of its bulk refreshes. Call it
// before the first refresh.
func (ix *Index) UseBulkMemory(m BulkMemory) {
	ix.mu.Lock()
	ix.bulk = m
	ix.mu.Unlock()
}
