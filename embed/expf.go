package embed

import "math"

// expf is a float32 exp for softmax inputs (x ≤ 0): 2^(x·log2 e), the
// fraction (in [-0.5, 0.5)) by a degree-6 Taylor polynomial; relative error
// below 2e-7 above float32's subnormal range, several times faster than
// math.Exp. Below -87 it is 0.
func expf(x float32) float32 {
	if x < -87 {
		return 0
	}
	t := float64(x) * math.Log2E
	n := int32(t+0.5+256) - 256 // floor(t + 0.5) for t > -256
	f := t - float64(n)
	// 2^f on [-0.5, 0.5]: Taylor coefficients of e^(f·ln2).
	p := 1 + f*(0.6931471805599453+f*(0.2402265069591007+f*(0.05550410866482158+
		f*(0.009618129107628477+f*(0.0013333558146428443+f*0.00015403530393381606)))))
	if n < -126 { // 2^n is subnormal in float32: let float64 carry it
		return float32(p * math.Ldexp(1, int(n)))
	}
	return float32(p) * math.Float32frombits(uint32(n+127)<<23)
}
