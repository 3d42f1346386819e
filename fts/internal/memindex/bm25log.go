package memindex

// #cgo LDFLAGS: -lm
// #include <math.h>
import "C"

// cLog is the C library's natural logarithm, which SQLite's bm25() uses; Go's
// math.Log may differ from it in the last bit, and the in-memory scorer
// must reproduce bm25()'s scores exactly (see memindex.go).
func cLog(x float64) float64 { return float64(C.log(C.double(x))) }
