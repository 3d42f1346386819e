package eval

import "testing"

// A split holds out about half of the questions, the same half on every
// run, and another seed holds out another half.
func TestHeldOut_HalfOfTheQuestionsBySeed(t *testing.T) {
	qs, err := LoadQuestions("../testdata/demo-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	held, differ := 0, 0
	for _, q := range qs {
		a := HeldOut("7", q.Query)
		if a != HeldOut("7", q.Query) {
			t.Fatalf("%q: held out on one call and not on the next", q.Query)
		}
		if a {
			held++
		}
		if a != HeldOut("8", q.Query) {
			differ++
		}
	}
	if n := len(qs); held < n/4 || held > 3*n/4 {
		t.Errorf("seed 7 holds out %d of %d questions; want about half", held, n)
	}
	if differ == 0 {
		t.Errorf("seeds 7 and 8 hold out the same questions")
	}
}

// The strict reading counts only the question's own section and note.
func TestStrict_OnlyTheQuestionsOwnPlace(t *testing.T) {
	q := Question{Query: "q", Expected: "a.md#Use"}
	if f := Strict(q, RankedFromSections([]string{"b.md#X", "a.md#Other", "a.md#Use"})); f.Note1 || !f.Note3 || f.Section1 {
		t.Errorf("the answer's note second, its section third: %+v; want note@3 only", f)
	}
	if f := Strict(q, RankedFromSections([]string{"a.md#Use"})); !f.Note1 || !f.Note3 || !f.Section1 {
		t.Errorf("the answer first: %+v; want all three", f)
	}
}
