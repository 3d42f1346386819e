package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Embedder turns texts into vectors of a fixed dimension.
type Embedder interface {
	// Name identifies the model; the index records it and re-embeds when it changes.
	Name() string
	// Dim is the vector dimension.
	Dim() int
	// Embed returns one vector per text, L2-normalized. It fails when the model
	// is not ready (ErrNotReady), the endpoint is down, slow or returns the
	// wrong dimension; the error names the model or endpoint.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrNotReady is returned (wrapped) when a model cannot run yet, e.g. its
// weights are not installed. The message says what to run.
var ErrNotReady = errors.New("embedding model not ready")

// NotReadyError says why the model is not ready and how far preparation is.
type NotReadyError struct {
	Model    string
	Reason   string
	Progress float64 // 0..1
}

func (e *NotReadyError) Error() string {
	return fmt.Sprintf("embedding model %s is not ready: %s", e.Model, e.Reason)
}

// Unwrap lets errors.Is(err, ErrNotReady) match.
func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// Normalize scales v to unit length in place (a zero vector stays zero).
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
