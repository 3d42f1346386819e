package memindex

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// Postings gathered in runs and merged make the very vocab that adding
// them to a vocab and freezing it makes: the same tokens in the same
// order, the same lists, the same packed bytes. Runs are cut small so that
// tokens span many of them; frequencies include escaped ones.
func TestRunBuilderMakesTheFrozenVocab(t *testing.T) {
	defer func(n int) { runPostings = n }(runPostings)
	runPostings = 7
	rnd := rand.New(rand.NewSource(3))
	toks := []string{"a", "b", "检索", "release", "zeta", "mid", "z", "é"}
	for i := 0; i < 300; i++ {
		toks = append(toks, fmt.Sprintf("t%03d", rnd.Intn(500)))
	}
	var want vocab
	rb, err := newRunBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rb.close()
	for d := int32(0); d < 2000; d++ {
		seen := map[string]bool{}
		for k := rnd.Intn(12); k >= 0; k-- {
			tok := toks[rnd.Intn(len(toks))]
			if seen[tok] {
				continue
			}
			seen[tok] = true
			f := uint16(1 + rnd.Intn(4))
			if rnd.Intn(50) == 0 {
				f = uint16(200 + rnd.Intn(1000))
			}
			want.add(tok, d, f)
			rb.add(tok, d, f)
		}
		d += int32(rnd.Intn(3)) // gaps of more than one doc
	}
	want.freeze(nil, "")
	got, err := rb.finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.spans) < 100 {
		t.Fatalf("only %d runs: the test proves little", len(rb.spans))
	}
	if got.text != want.text {
		t.Fatal("the tokens' text differs")
	}
	if fmt.Sprint(got.ends) != fmt.Sprint(want.ends) || fmt.Sprint(got.lists) != fmt.Sprint(want.lists) {
		t.Fatal("the tokens' ends or lists differ")
	}
	if !bytes.Equal(got.arena, want.arena) {
		t.Fatalf("the packed postings differ (%d bytes against %d)", len(got.arena), len(want.arena))
	}
	if got.mapped == nil {
		t.Error("the merged vocab is not mapped from a file")
	}
}

// A run that cannot be written (here its file is closed under it, as a
// full disk would refuse it) fails the builder: finish answers an error,
// never a vocab missing the postings.
func TestRunBuilder_ARunNotWrittenIsAnError(t *testing.T) {
	defer func(n int) { runPostings = n }(runPostings)
	runPostings = 5
	rb, err := newRunBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rb.f.Close()
	for d := int32(0); d < 100; d++ {
		rb.add(fmt.Sprintf("t%d", d%7), d, 1)
	}
	if _, err := rb.finish(); err == nil {
		t.Fatal("finish answered a vocab though no run was written")
	}
}
