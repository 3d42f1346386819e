package lazyre

import "testing"

func TestNew_CompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatal("the compiled expression does not match as written")
	}
	if re() != first {
		t.Fatal("a second call compiled the expression again")
	}
}

func TestNew_InvalidExpressionPanicsOnUse(t *testing.T) {
	re := New(`(`) // no panic here: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic on first use")
		}
	}()
	re()
}
