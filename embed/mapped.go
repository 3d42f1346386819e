package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/lore-memory/lore/internal/mmap"
	"github.com/lore-memory/lore/vault"
)

// The weights as the model runs them, in one file beside the shards
// (mappedFile), mapped into memory instead of read. Loading from the shards
// reads 26 MB, converts every float and packs the matrices' panels for the
// GEMM kernels: most of a one-shot `lore activate`'s start (BenchmarkLoadUSELite;
// docs/BENCHMARKS.md, "One warm lore").
// The first load from the shards writes this file (best effort: a
// read-only model folder just goes without it); later loads map it, which
// costs a few page-table entries, and its pages are the page cache's, shared
// by every lore process and given back under memory pressure instead of
// being each process's own heap.
//
// The file is derived data: its header holds a digest of the sources' names,
// sizes and modification times (model.json and every shard), whether the
// panels are packed (AVX2 machines), and the byte order; any mismatch means
// it is rebuilt from the shards. The arrays follow in a fixed order
// (mappedArrays), each 64-byte aligned.
const (
	mappedFile  = "use-lite.lorew"
	mappedMagic = "LOREW001"
)

// mappedArrays lists the model's arrays in the file's order, as pointers into
// w so that one list serves writing and reading. qScale is kept as an array
// of one.
func mappedArrays(w *useWeights, packed bool) []*[]float32 {
	var out []*[]float32
	matrix := func(m **weight) {
		if *m == nil {
			*m = &weight{}
		}
		out = append(out, &(*m).raw)
		if packed {
			out = append(out, &(*m).packed)
		}
	}
	out = append(out, &w.emb, &w.timing)
	for l := range w.layers {
		lw := &w.layers[l]
		out = append(out, &lw.lnScale, &lw.lnBias)
		matrix(&lw.qkv)
		out = append(out, &lw.qkvBias)
		matrix(&lw.out)
		out = append(out, &lw.outBias, &lw.qScaleArr, &lw.ffnLNScale, &lw.ffnLNBias)
		matrix(&lw.ffn1)
		out = append(out, &lw.ffn1Bias)
		matrix(&lw.ffn2)
		out = append(out, &lw.ffn2Bias)
		if l == 0 {
			matrix(&lw.dense)
			out = append(out, &lw.denseBias)
		}
	}
	matrix(&w.tanh)
	out = append(out, &w.tanh0)
	return out
}

// sourceDigest hashes the names, sizes and modification times of model.json
// and the shards in dir.
func sourceDigest(dir string) (uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n == "model.json" || strings.Contains(n, "shard") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	h := fnv.New64a()
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", n, fi.Size(), fi.ModTime().UnixNano())
	}
	return h.Sum64(), nil
}

// littleEndian reports whether this machine stores a float32 as the file
// does.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

const mappedHeader = 8 + 8 + 4 + 4 // magic, digest, flags, array count

// writeMapped writes w to dir's mapped file, replacing it whole.
func writeMapped(dir string, digest uint64, w *useWeights) error {
	if !littleEndian() {
		return errors.New("not a little-endian machine")
	}
	arrays := mappedArrays(w, haveAVX2FMA)
	head := make([]byte, mappedHeader+8*len(arrays))
	copy(head, mappedMagic)
	binary.LittleEndian.PutUint64(head[8:], digest)
	if haveAVX2FMA {
		binary.LittleEndian.PutUint32(head[16:], 1)
	}
	binary.LittleEndian.PutUint32(head[20:], uint32(len(arrays)))
	for i, a := range arrays {
		binary.LittleEndian.PutUint64(head[mappedHeader+8*i:], uint64(len(*a)))
	}
	data := append([]byte(nil), head...)
	for _, a := range arrays {
		for len(data)%64 != 0 {
			data = append(data, 0)
		}
		if len(*a) > 0 {
			data = append(data, unsafe.Slice((*byte)(unsafe.Pointer(&(*a)[0])), 4*len(*a))...)
		}
	}
	return vault.WriteFileAtomic(filepath.Join(dir, mappedFile), data)
}

// readMapped maps dir's mapped file into w when it matches digest and this
// machine; ok false means it is absent or stale (not an error: the caller
// loads the shards).
func readMapped(dir string, digest uint64, w *useWeights) (ok bool) {
	if !littleEndian() {
		return false
	}
	f, err := os.Open(filepath.Join(dir, mappedFile))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < mappedHeader || fi.Size() > maxWeightBytes {
		return false
	}
	b, err := mmap.Read(f, int(fi.Size()))
	if err != nil {
		return false
	}
	packed := binary.LittleEndian.Uint32(b[16:]) == 1
	arrays := mappedArrays(w, packed)
	if string(b[:8]) != mappedMagic || binary.LittleEndian.Uint64(b[8:]) != digest || packed != haveAVX2FMA ||
		int(binary.LittleEndian.Uint32(b[20:])) != len(arrays) || len(b) < mappedHeader+8*len(arrays) {
		mmap.Unmap(b)
		return false
	}
	off := mappedHeader + 8*len(arrays)
	for i, a := range arrays {
		n := int(binary.LittleEndian.Uint64(b[mappedHeader+8*i:]))
		off = (off + 63) &^ 63
		if n < 0 || off+4*n > len(b) {
			mmap.Unmap(b)
			return false
		}
		*a = nil
		if n > 0 {
			*a = unsafe.Slice((*float32)(unsafe.Pointer(&b[off])), n)
		}
		off += 4 * n
	}
	return true // the mapping lives as long as the process
}
