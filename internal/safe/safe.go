// Package safe turns a panic into an error, so that no goroutine of a
// long-running lore process (a refresh, the watcher, embedding, sync, the
// stages of one request) takes the process down: what panicked fails, with
// its stack kept for the log, and everything else goes on.
package safe

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is a recovered panic: its value and the stack where it
// happened.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	if pe, ok := e.Value.(*PanicError); ok {
		return pe.Error()
	}
	return fmt.Sprintf("a bug in lore: %v", e.Value)
}

// Call runs f and returns its error, or a *PanicError when f panics.
func Call(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = asPanicError(v)
		}
	}()
	return f()
}

// Do runs f, returning a *PanicError when it panics and nil otherwise.
func Do(f func()) error {
	return Call(func() error { f(); return nil })
}

// Catcher carries a panic from goroutines a function started back to the
// function itself, where the recover of its request or background step
// waits: each goroutine defers Catch, and the function calls Rethrow after
// it waited for them.
type Catcher struct {
	mu  sync.Mutex
	err *PanicError
}

// Catch recovers a panic of the goroutine that deferred it and keeps the
// first one. It must be deferred directly (defer c.Catch()).
func (c *Catcher) Catch() {
	if v := recover(); v != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err == nil {
			c.err = asPanicError(v)
		}
	}
}

// Rethrow panics again with the first panic caught, if any.
func (c *Catcher) Rethrow() {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		panic(err)
	}
}

// asPanicError keeps the stack of a panic that was carried once already.
func asPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}
