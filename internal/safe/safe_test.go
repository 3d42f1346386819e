package safe

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestCall_APanicIsAnErrorWithItsStack(t *testing.T) {
	err := Call(func() error { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "safe_test.go") {
		t.Fatalf("Call = %v; want a *PanicError for boom with the stack where it happened", err)
	}
	if err := Call(func() error { return errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Errorf("Call passed %v on, want the function's own error", err)
	}
}

// TestCatcher_CarriesAGoroutinesPanicToItsCaller: a panic in a goroutine
// reaches the function that started it, where its recover is, with the
// goroutine's stack, not the re-panic's.
func TestCatcher_CarriesAGoroutinesPanicToItsCaller(t *testing.T) {
	err := Call(func() error {
		var c Catcher
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer c.Catch()
				if i == 2 {
					worker()
				}
			}(i)
		}
		wg.Wait()
		c.Rethrow()
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "worker") || err.Error() != "a bug in lore: worker's bug" {
		t.Fatalf("got %v; want the worker's panic with its stack", err)
	}
	var c Catcher
	c.Rethrow() // nothing caught: no panic
}

func worker() { panic("worker's bug") }
