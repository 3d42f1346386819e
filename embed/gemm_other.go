//go:build !amd64

package embed

var haveAVX2FMA = false

func sgemm4x16(c *float32, ldc int, a *float32, lda int, b *float32, ldb int, k int) {
	panic("sgemm4x16 without amd64")
}

func sgemm6x16(c *float32, ldc int, a *float32, lda int, b *float32, ldb int, k int) {
	panic("sgemm6x16 without amd64")
}
