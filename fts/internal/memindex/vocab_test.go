package memindex

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// TestVocab_FrozenAndAdded finds tokens in the frozen part and among those
// added after it, by exact token and by prefix, and a freeze keeps every
// token with postings and drops the ones left without.
func TestVocab_FrozenAndAdded(t *testing.T) {
	t.Parallel()
	var v vocab
	for i, tok := range []string{"retry", "并发", "并", "release", "并发控制", "a", "retries"} {
		v.add(tok, int32(i), 1)
	}
	v.freeze(nil, "")
	for i, tok := range []string{"zebra", "并行", "re"} {
		v.add(tok, int32(10+i), 2)
	}
	for _, tok := range []string{"retry", "并发", "a", "zebra", "并行", "re"} {
		if p := v.find(tok); p == nil || p.n != 1 {
			t.Errorf("find(%q) = %v", tok, p)
		}
	}
	for _, tok := range []string{"retr", "并发控", "b", ""} {
		if p := v.find(tok); p != nil {
			t.Errorf("find(%q) found a list for a token never added", tok)
		}
	}
	prefixDocs := func(prefix string) []int32 {
		var ds []int32
		for _, p := range v.withPrefix(prefix) {
			for it := v.iter(p); it.next(); {
				ds = append(ds, it.d)
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds
	}
	if got, want := prefixDocs("并"), []int32{1, 2, 4, 11}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens starting with 并: docs %v, want %v", got, want)
	}
	if got, want := prefixDocs("re"), []int32{0, 3, 6, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens starting with re: docs %v, want %v", got, want)
	}
	// Emptied lists are dropped by the next freeze; the rest survive it.
	*v.find("release") = plist{}
	*v.find("zebra") = plist{}
	v.freeze(nil, "")
	if v.find("release") != nil || v.find("zebra") != nil {
		t.Error("a token without postings survived the freeze")
	}
	if v.count() != 8 || len(v.ends) != 8 || v.added != nil {
		t.Errorf("after the freeze: %d tokens, %d frozen, added %v; want 8 frozen", v.count(), len(v.ends), v.added)
	}
	if p := v.find("并行"); p == nil || p.n != 1 {
		t.Error("a token added after the first freeze was lost by the second")
	}
}

// TestMemIndex_CompactKeepsTheRanking deletes two units in three and
// compacts: every query then ranks exactly as a copy built from the
// remaining units alone (same uids, same scores).
func TestMemIndex_CompactKeepsTheRanking(t *testing.T) {
	t.Parallel()
	words := []string{"retry", "budget", "sync", "deploy", "staging", "cache", "并发", "控制", "并行", "release", "rollback"}
	r := rand.New(rand.NewPCG(7, 7))
	res := &Res{Path: "n.md"}
	unit := func(uid int64) *Unit {
		u := &Unit{UID: uid, Key: fmt.Sprint(uid), Res: res}
		seen := map[string]bool{}
		for k := 0; k < 1+r.IntN(6); k++ {
			w := words[r.IntN(len(words))]
			if !seen[w] {
				seen[w] = true
				u.Toks, u.Freq = append(u.Toks, w), append(u.Freq, uint16(1+r.IntN(8)))
			}
		}
		u.Toks = append(u.Toks, fmt.Sprintf("only%d", uid)) // a token that dies with its unit
		u.Freq = append(u.Freq, 1)
		u.Length = int32(len(u.Toks) * 3)
		return u
	}
	newMem := func() *Index {
		return New(0, "")
	}
	all, kept := newMem(), newMem()
	var units []*Unit
	for uid := int64(1); uid <= 600; uid++ {
		units = append(units, unit(uid))
	}
	for _, u := range units {
		all.add(u)
		if u.UID%3 == 0 {
			kept.add(u)
		}
	}
	all.shrink()
	kept.shrink()
	for _, u := range units {
		if u.UID%3 != 0 {
			all.remove(u.UID)
		}
	}
	if all.nDead*3 <= all.nPost {
		t.Fatalf("the deletes (%d of %d postings) would not trigger compaction", all.nDead, all.nPost)
	}
	all.compact()
	if all.nPost != kept.nPost || all.terms.count() != kept.terms.count() {
		t.Fatalf("after compaction: %d postings, %d tokens; built from the kept units: %d, %d", all.nPost, all.terms.count(), kept.nPost, kept.terms.count())
	}
	for _, q := range [][]string{{"retry"}, {"deploy", "staging"}, {"并"}, {"并发", "rollback"}, {"only3"}, {"only4"}, {"cache", "release", "sync", "budget"}} {
		got, want := all.Search(q, View{}, 20), kept.Search(q, View{}, 20)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("query %q after compaction: %v, built from the kept units: %v", q, got, want)
		}
	}
}

// TestVocab_TailsLargeAfterGrowth: postings added after a freeze are counted,
// and past a quarter of the arena (plus slack) they ask for a freeze, which
// takes them in and keeps every posting.
func TestVocab_TailsLargeAfterGrowth(t *testing.T) {
	t.Parallel()
	var v vocab
	for d := int32(0); d < 1000; d++ {
		v.add(fmt.Sprint("t", d%50), d, 1)
	}
	v.freeze(nil, "")
	if v.tailsLarge() {
		t.Fatal("a fresh freeze asks for another")
	}
	d := int32(1000)
	for ; !v.tailsLarge(); d++ {
		v.add(fmt.Sprint("t", d%50), d, 1)
		if d > 10_000_000 {
			t.Fatal("the tails never asked for a freeze")
		}
	}
	if v.tailBytes < tailSlack {
		t.Fatalf("asked for a freeze at %d bytes of tails", v.tailBytes)
	}
	before := v.postings()
	v.freeze(nil, "")
	if v.tailBytes != 0 || len(v.tails) != 0 || v.postings() != before || before != int64(d) {
		t.Fatalf("after the freeze: %d tail bytes, %d tails, %d postings (%d before, %d added)", v.tailBytes, len(v.tails), v.postings(), before, d)
	}
}

// TestVocab_AddedTokensAskForAFreeze: new tokens wait outside the sorted
// part only up to addedSlack, since a lone CJK character's query reads all
// of them; a freeze then sorts them in and finds each one.
func TestVocab_AddedTokensAskForAFreeze(t *testing.T) {
	t.Parallel()
	var v vocab
	for d := int32(0); d < 100; d++ {
		v.add(fmt.Sprint("old", d), d, 1)
	}
	v.freeze(nil, "")
	d := int32(100)
	for ; !v.tailsLarge(); d++ {
		v.add(fmt.Sprint("并new", d), d, 1)
		if d > 100+2*addedSlack {
			t.Fatalf("%d added tokens and no freeze asked for", len(v.added))
		}
	}
	if len(v.added) != addedSlack+1 {
		t.Errorf("asked for a freeze at %d added tokens, want %d", len(v.added), addedSlack+1)
	}
	v.freeze(nil, "")
	if len(v.added) != 0 || v.count() != int(d) || len(v.withPrefix("并")) != int(d)-100 {
		t.Errorf("after the freeze: %d added, %d tokens, %d starting with 并", len(v.added), v.count(), len(v.withPrefix("并")))
	}
	if v.find("并new150") == nil || v.find("old7") == nil {
		t.Error("a token was lost by the freeze")
	}
}
