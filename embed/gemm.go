package embed

import (
	"runtime"
	"sync"

	"github.com/lore-memory/lore/internal/safe"
)

// sgemm adds a (m×k) · b (k×n) into c (m×n); lda, ldb, ldc are the row strides
// in elements, so sub-matrices (one attention head inside a QKV row) need no
// copying. Full 6×16 and 4×16 tiles go to the AVX2/FMA kernels where the CPU
// has them; edges (and other CPUs) use the Go loop. Blocking follows the
// GotoBLAS scheme: k in blocks of kc, each block of b packed into contiguous
// kc×16 column panels (one stays in L1 while a kernel runs), rows of a in
// blocks of mc (which stay in L2 while every panel passes by).
func sgemm(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	sgemmPacked(c, ldc, a, lda, b, ldb, nil, m, n, k)
}

// packPanels lays b (k×n, row stride ldb) out as sgemm's packed panels: for
// each block of kc rows, for each group of 16 columns, kb×16 contiguous values.
func packPanels(b []float32, ldb, k, n int) []float32 {
	fullN := n &^ 15
	out := make([]float32, k*fullN)
	for p0 := 0; p0 < k; p0 += kc {
		kb := min(kc, k-p0)
		blk := out[p0*fullN:]
		for j := 0; j < fullN; j += 16 {
			panel := blk[j*kb : j*kb+kb*16]
			for p := 0; p < kb; p++ {
				copy(panel[p*16:p*16+16], b[(p0+p)*ldb+j:(p0+p)*ldb+j+16])
			}
		}
	}
	return out
}

const kc, mc = 512, 96 // k block; row block (a multiple of 6 and of 4)

// sgemmPacked is sgemm with b's panels already packed (by packPanels) when
// packed is not nil, as the model's weights are at load time.
//
// Rows that do not fill a 6- or 4-row tile (the last one to three; all of
// them when m < 4, as in a short query's matrices) go through the 4-row
// kernel too, copied into a zero-padded 4-row block and back: the Go loop
// over every column was most of a short query's embedding time.
//
// It is long on purpose: the k, row and column blocking loops and the
// micro-kernel calls share their indices, and read as one piece against the
// packing layout (the loop order of BLIS); split, each part would need all
// of them passed in.
func sgemmPacked(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, packed []float32, m, n, k int) {
	sgemmColumns(c, ldc, a, lda, b, ldb, packed, n&^15, 0, m, n, k)
}

// sgemmColumns is sgemmPacked over columns j0..j0+n-1 of a product whose
// packed panels (when packed is not nil) span stride columns in all: c and
// b start at column j0, and j0 is a multiple of 16.
func sgemmColumns(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, packed []float32, stride, j0, m, n, k int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	// Bounds are checked once here; the kernels read within them.
	_ = a[(m-1)*lda+k-1]
	_ = b[(k-1)*ldb+n-1]
	_ = c[(m-1)*ldc+n-1]
	fullN := 0
	if haveAVX2FMA {
		fullN = n &^ 15
	}
	prepacked := packed != nil
	pack := fullN > 0 && (prepacked || m >= 24)
	if pack && !prepacked {
		packed = make([]float32, min(kc, k)*fullN)
	}
	// Only the last row block can end in a partial tile (mc is a multiple
	// of 6): rows tail..m-1, padded into ta (4×k) and tc (4×fullN).
	last := (m - 1) / mc * mc
	tail := tileRows(last, m)
	var ta, tc []float32
	if fullN > 0 && tail < m {
		buf := padScratch.Get().(*[]float32)
		defer padScratch.Put(buf)
		if need := 4*k + 4*fullN; cap(*buf) < need {
			*buf = make([]float32, need)
		} else {
			*buf = (*buf)[:need]
			clear(*buf)
		}
		ta, tc = (*buf)[:4*k], (*buf)[4*k:]
		for i := tail; i < m; i++ {
			copy(ta[(i-tail)*k:(i-tail+1)*k], a[i*lda:i*lda+k])
			copy(tc[(i-tail)*fullN:(i-tail+1)*fullN], c[i*ldc:i*ldc+fullN])
		}
	}
	for p0 := 0; p0 < k && fullN > 0; p0 += kc {
		kb := min(kc, k-p0)
		blk := packed
		if prepacked {
			blk = packed[p0*stride+j0*kb:]
		} else if pack {
			for j := 0; j < fullN; j += 16 {
				panel := blk[j*kb : j*kb+kb*16]
				for p := 0; p < kb; p++ {
					copy(panel[p*16:p*16+16], b[(p0+p)*ldb+j:(p0+p)*ldb+j+16])
				}
			}
		}
		for i0 := 0; i0 < m; i0 += mc {
			i1 := min(i0+mc, m)
			full6 := i0 + (i1-i0)/6*6
			fullM := tileRows(i0, i1)
			for j := 0; j < fullN; j += 16 {
				bp, ldp := b[p0*ldb+j:], ldb
				if pack {
					bp, ldp = blk[j*kb:], 16
				}
				i := i0
				for ; i < full6; i += 6 {
					sgemm6x16(&c[i*ldc+j], ldc, &a[i*lda+p0], lda, &bp[0], ldp, kb)
				}
				for ; i < fullM; i += 4 {
					sgemm4x16(&c[i*ldc+j], ldc, &a[i*lda+p0], lda, &bp[0], ldp, kb)
				}
				if i < i1 {
					sgemm4x16(&tc[j], fullN, &ta[p0], k, &bp[0], ldp, kb)
				}
			}
		}
	}
	for i := tail; i < m && tc != nil; i++ {
		copy(c[i*ldc:i*ldc+fullN], tc[(i-tail)*fullN:(i-tail+1)*fullN])
	}
	// What the kernels did not cover: the last (n mod 16) columns, and every
	// column when there are no kernels.
	for i := 0; i < m; i++ {
		if fullN == n {
			break
		}
		ci := c[i*ldc+fullN : i*ldc+n]
		ai := a[i*lda : i*lda+k]
		for p, av := range ai {
			axpy(ci, b[p*ldb+fullN:p*ldb+n], av)
		}
	}
}

// padScratch holds the padded tiles' buffers between products: a short
// query's products would otherwise allocate a few hundred kilobytes each
// time it is embedded.
var padScratch = sync.Pool{New: func() any { return new([]float32) }}

// tileRows is where the full 6- and 4-row tiles of rows i0..i1-1 end.
func tileRows(i0, i1 int) int {
	full6 := i0 + (i1-i0)/6*6
	return full6 + (i1-full6)&^3
}

// matmul sets c (m×n) = a (m×k) · w (k×n) + bias (n, may be nil), all
// contiguous row-major, splitting rows across goroutines when parallel.
func matmul(c, a []float32, w *weight, bias []float32, m int, parallel bool) {
	b, packed, k, n := w.raw, w.packed, w.k, w.n
	for i := 0; i < m; i++ {
		row := c[i*n : (i+1)*n]
		if bias != nil {
			copy(row, bias)
		} else {
			clear(row)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if !parallel || workers == 1 {
		sgemmPacked(c, n, a, k, b, n, packed, m, n, k)
		return
	}
	if m < 32 {
		// A few rows (a query): each weight is used m times, so the product
		// streams the weights from memory; split by columns, the cores
		// stream their own parts of them at once.
		per := max(64, (n/workers+15)&^15)
		var wg sync.WaitGroup
		var caught safe.Catcher
		for j0, j1 := 0, 0; j0 < n; j0 = j1 {
			if j1 = min(j0+per, n); n-j1 < 16 {
				j1 = n // the last part takes the columns no panel covers
			}
			wg.Add(1)
			go func(j0, j1 int) {
				defer wg.Done()
				defer caught.Catch()
				sgemmColumns(c[j0:], n, a, k, b[j0:], n, packed, n&^15, j0, m, j1-j0, k)
			}(j0, j1)
		}
		wg.Wait()
		caught.Rethrow()
		return
	}
	per := ((m+workers-1)/workers + 3) &^ 3
	var wg sync.WaitGroup
	var caught safe.Catcher
	for lo := 0; lo < m; lo += per {
		hi := min(lo+per, m)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			defer caught.Catch()
			sgemmPacked(c[lo*n:], n, a[lo*k:], k, b, n, packed, hi-lo, n, k)
		}(lo, hi)
	}
	wg.Wait()
	caught.Rethrow()
}

// axpy sets y += alpha·x.
func axpy(y, x []float32, alpha float32) {
	x = x[:len(y)]
	for j := range y {
		y[j] += alpha * x[j]
	}
}

// weight is a constant k×n matrix with its panels packed once.
type weight struct {
	raw, packed []float32
	k, n        int
}

func newWeight(raw []float32, k, n int) *weight {
	w := &weight{raw: raw, k: k, n: n}
	if haveAVX2FMA {
		w.packed = packPanels(raw, n, k, n)
	}
	return w
}
