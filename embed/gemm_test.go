package embed

import (
	"math"
	"math/rand"
	"runtime"
	"testing"
)

// TestSgemm checks sgemm against a float64 reference, on shapes with and
// without full tiles and with strided sub-matrices, on every machine both
// with the AVX2/FMA kernels (when the CPU has them) and with the pure-Go
// path that machines without them take.
func TestSgemm(t *testing.T) { onEachPath(t, testSgemm) }

// onEachPath runs test with the pure-Go path and, when the CPU has them,
// with the AVX2/FMA kernels.
func onEachPath(t *testing.T, test func(t *testing.T)) {
	saved := haveAVX2FMA
	defer func() { haveAVX2FMA = saved }()
	for _, kernels := range []bool{false, true} {
		if kernels && !saved {
			continue
		}
		haveAVX2FMA = kernels
		t.Run(map[bool]string{false: "pure-Go", true: "AVX2-FMA"}[kernels], test)
	}
}

func testSgemm(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	// Shapes whose last rows fill no 4-row tile (m mod 6 of 1 to 3, m < 4)
	// take the padded path, some of them over several k blocks (k > kc)
	// and several row blocks (m > mc).
	sizes := [][3]int{{1, 1, 1}, {4, 16, 1}, {5, 17, 3}, {128, 512, 256}, {37, 48, 70}, {8, 15, 9}, {30, 32, 40}, {24, 64, 5}, {7, 16, 2}, {40, 48, 600}, {3, 32, 300},
		{1, 64, 1100}, {2, 48, 513}, {9, 33, 40}, {99, 32, 20}, {195, 16, 7}}
	for i, sz := range sizes {
		testSgemmShape(t, r, sz, i%2 == 1) // every other shape prepacked
	}
}

// testSgemmShape checks one m×n×k product, with b's panels packed first
// (as the model's weights are) when prepacked.
func testSgemmShape(t *testing.T, r *rand.Rand, sz [3]int, prepacked bool) {
	m, n, k := sz[0], sz[1], sz[2]
	lda, ldb, ldc := k+3, n+5, n+2
	a := make([]float32, m*lda)
	b := make([]float32, k*ldb)
	c := make([]float32, m*ldc)
	for i := range a {
		a[i] = r.Float32() - 0.5
	}
	for i := range b {
		b[i] = r.Float32() - 0.5
	}
	for i := range c {
		c[i] = 1
	}
	var packed []float32
	if prepacked && haveAVX2FMA {
		packed = packPanels(b, ldb, k, n)
	}
	sgemmPacked(c, ldc, a, lda, b, ldb, packed, m, n, k)
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			want := 1.0
			if j < n {
				for p := 0; p < k; p++ {
					want += float64(a[i*lda+p]) * float64(b[p*ldb+j])
				}
			}
			if got := float64(c[i*ldc+j]); math.Abs(got-want) > 1e-4 {
				t.Fatalf("%v (prepacked %v): c[%d][%d] = %v, want %v", sz, prepacked, i, j, got, want)
			}
		}
	}
}

// TestMatmulSplitsColumns checks matmul's products of a few rows split by
// columns across cores (a query's), against a float64 reference: parts that
// begin inside the packed panels (k over one block or more) and a last part
// holding the columns no panel covers, on both paths.
func TestMatmulSplitsColumns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3)) // three parts, whatever this machine has
	onEachPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(2))
		for _, sz := range [][3]int{{1, 512, 256}, {3, 1536, 512}, {7, 520, 600}, {31, 200, 1100}, {5, 40, 64}, {2, 2048, 512}} {
			m, n, k := sz[0], sz[1], sz[2]
			a, raw, bias := make([]float32, m*k), make([]float32, k*n), make([]float32, n)
			for _, x := range [][]float32{a, raw, bias} {
				for i := range x {
					x[i] = r.Float32() - 0.5
				}
			}
			c := make([]float32, m*n)
			matmul(c, a, newWeight(raw, k, n), bias, m, true)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					want := float64(bias[j])
					for p := 0; p < k; p++ {
						want += float64(a[i*k+p]) * float64(raw[p*n+j])
					}
					if got := float64(c[i*n+j]); math.Abs(got-want) > 1e-4 {
						t.Fatalf("%v: c[%d][%d] = %v, want %v", sz, i, j, got, want)
					}
				}
			}
		}
	})
}

func TestExpf(t *testing.T) {
	for x := float32(-80); x <= 0; x += 0.01 {
		want := math.Exp(float64(x))
		if got := float64(expf(x)); math.Abs(got-want) > 2e-7*want {
			t.Fatalf("expf(%v) = %v, want %v", x, got, want)
		}
	}
}
