package embed

import "golang.org/x/sys/cpu"

// sgemm4x16 is the AVX2/FMA micro-kernel in gemm_amd64.s.
//
//go:noescape
func sgemm4x16(c *float32, ldc int, a *float32, lda int, b *float32, ldb int, k int)

var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// sgemm6x16 is sgemm4x16 over six rows of a (more reuse of each load of b).
//
//go:noescape
func sgemm6x16(c *float32, ldc int, a *float32, lda int, b *float32, ldb int, k int)
