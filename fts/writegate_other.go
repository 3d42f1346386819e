//go:build !unix

package fts

import "context"

// enterGate: no writers' gate without flock (see writegate.go).
func enterGate(context.Context, string) (func(), error) { return func() {}, nil }
