package memindex

import (
	"fmt"
	"sort"
	"strings"
)

// What package fts's tests read of a copy they built from an index: its
// contents in a fixed order, a doc's key, and where its frozen parts are.

// Dump writes out everything the copy holds that a query can see: each
// live doc (uid, unit key, vector key, resource, length) and each token's
// postings as (uid, frequency), both in a fixed order, so that two copies
// compare line by line.
func (m *Index) Dump() (docs, postings []string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for d := range m.docs {
		if m.lens[d] < 0 {
			continue
		}
		doc := m.docs[d]
		docs = append(docs, fmt.Sprintf("%d %s %x %+v %d", doc.uid, m.key(int32(d)), doc.emb, *doc.res, m.lens[d]))
	}
	sort.Strings(docs)
	list := func(t string, p *plist) {
		var ps []string
		for it := m.terms.iter(p); it.next(); {
			if m.lens[it.d] >= 0 {
				ps = append(ps, fmt.Sprintf("%d:%d", m.docs[it.d].uid, it.f))
			}
		}
		if len(ps) > 0 {
			sort.Strings(ps)
			postings = append(postings, t+" "+strings.Join(ps, " "))
		}
	}
	for i := range m.terms.ends {
		list(m.terms.token(i), &m.terms.lists[i])
	}
	for t, i := range m.terms.added {
		list(t, &m.terms.lists[i])
	}
	sort.Strings(postings)
	return docs, postings
}

// KeyOf returns the unit_key of the live doc with uid.
func (m *Index) KeyOf(uid int64) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d, ok := m.byUID.find(uint64(uid))
	if !ok {
		return "", false
	}
	return m.key(d), true
}

// Mapped reports whether the frozen tokens and the frozen unit keys are
// mapped from a file (spill.go), and how many bytes the frozen tokens take.
func (m *Index) Mapped() (tokens, keys bool, frozenBytes int) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.terms.mapped != nil, m.keys.mapped != nil, len(m.terms.arena) + len(m.terms.text) + 4*len(m.terms.ends)
}

// Refreeze freezes the tokens again, into the heap (inHeap) or mapped from
// a file in the copy's folder, as a long-running process does from time to
// time.
func (m *Index) Refreeze(inHeap bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir := m.spillDir
	if inHeap {
		dir = ""
	}
	m.terms.freeze(nil, dir)
}
