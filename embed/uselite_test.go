package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// modelDir returns the installed model folder or skips: the weights come only
// from `lore model fetch` (CI runs it before the tests).
func modelDir(t testing.TB) string {
	t.Helper()
	dir, err := DefaultModelDir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(dir + "/model.json"); err != nil {
		if os.Getenv("LORE_REQUIRE_MODEL") != "" {
			t.Fatalf("LORE_REQUIRE_MODEL is set but %s has no model; run `make model`", dir)
		}
		t.Skipf("no model in %s; run `make model`", dir)
	}
	return dir
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestUSELite_SemanticOrdering(t *testing.T) {
	m, err := LoadUSELite(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := m.Embed(context.Background(), []string{
		"how do I release the app",
		"deployment steps for shipping a new version",
		"the cat sat on the mat",
	})
	if err != nil {
		t.Fatal(err)
	}
	near, far := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	t.Logf("cos(release, deployment) = %.3f; cos(release, cat) = %.3f", near, far)
	if near < 0.25 || near > 0.32 || far > 0.08 {
		t.Errorf("sanity pairs off the reference (≈0.285 and ≈0.023): %.3f, %.3f", near, far)
	}
	// Batching must not change results.
	one, _ := m.Embed(context.Background(), []string{"deployment steps for shipping a new version"})
	if c := cos(one[0], vs[1]); c < 0.9999 {
		t.Errorf("the same text embedded alone and in a batch differs: cos %.6f", c)
	}
}

// reference is embed/testdata/uselite_reference.json: token ids and vectors
// computed by the model's own TensorFlow.js implementation
// (scripts/uselite-reference.mjs says how it was made).
type reference struct {
	Model string `json:"model"`
	Cases []struct {
		Text   string    `json:"text"`
		IDs    []int     `json:"ids"`
		Vector []float64 `json:"vector"`
	} `json:"cases"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile("testdata/uselite_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 10 {
		t.Fatalf("the reference holds %d cases; want at least 10", len(ref.Cases))
	}
	return ref
}

// The tokenizer gives the reference's ids (English, code identifiers and
// paths, Chinese, full-width forms, a one-letter and an empty text), clipped
// to MaxTokens as the model's input is.
func TestUSELite_TokenIDsMatchTheReference(t *testing.T) {
	ref := loadReference(t)
	m, err := LoadUSELite(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		want := c.IDs
		if len(want) > MaxTokens {
			want = want[:MaxTokens]
		}
		got := m.tok.encode(c.Text)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("encode(%.40q) = %v\nwant %v", c.Text, got, want)
		}
	}
}

// Every vector is the reference's to within 1e-5 in each component.
func TestUSELite_VectorsMatchTheReference(t *testing.T) {
	ref := loadReference(t)
	m, err := LoadUSELite(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(ref.Cases))
	for i, c := range ref.Cases {
		texts[i] = c.Text
	}
	got, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range ref.Cases {
		if len(got[i]) != len(c.Vector) {
			t.Errorf("%.40q: %d dimensions, want %d", c.Text, len(got[i]), len(c.Vector))
			continue
		}
		worst, at := 0.0, 0
		for k, w := range c.Vector {
			if d := math.Abs(float64(got[i][k]) - w); d > worst {
				worst, at = d, k
			}
		}
		if worst >= 1e-5 {
			t.Errorf("%.40q: component %d is %v, the reference %v (difference %.2g)", c.Text, at, got[i][at], c.Vector[at], worst)
		}
	}
}

// TestReadShards_ConcatenatesInOrder reads a group's shards into one buffer
// in the order model.json lists them, and names what is wrong otherwise.
func TestReadShards_ConcatenatesInOrder(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"group1-shard1of2.bin": "abc", "group1-shard2of2.bin": "defgh"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	buf, err := readShards(dir, []string{"group1-shard1of2.bin", "group1-shard2of2.bin"})
	if err != nil || string(buf) != "abcdefgh" {
		t.Fatalf("readShards = %q, %v", buf, err)
	}
	var nr *NotReadyError
	if _, err := readShards(dir, []string{"group1-shard1of2.bin", "missing.bin"}); !errors.As(err, &nr) || !strings.Contains(err.Error(), "missing.bin") {
		t.Errorf("a missing shard: %v", err)
	}
	if _, err := readShards(dir, []string{"../outside.bin"}); err == nil || !strings.Contains(err.Error(), "outside the folder") {
		t.Errorf("a shard outside the folder: %v", err)
	}
}

// copyModel copies the installed model's sources (not its mapped file) into
// a temporary folder.
func copyModel(t *testing.T) string {
	t.Helper()
	src := modelDir(t)
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == mappedFile {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// The first load reads the shards and writes the mapped file; the next maps
// it and embeds bit for bit the same; a changed shard, and a damaged mapped
// file, send the load back to the shards.
func TestUSELite_MappedWeightsAreTheShards(t *testing.T) {
	dir := copyModel(t)
	texts := []string{"how do I release the app", "parseConfigFile defaults", "并发控制与分布式锁", ""}
	load := func() (*USELite, [][]float32) {
		t.Helper()
		m, err := LoadUSELite(dir)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := m.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		return m, vs
	}
	first, want := load()
	if first.mapped {
		t.Fatal("the first load mapped a file that was not there")
	}
	if _, err := os.Stat(filepath.Join(dir, mappedFile)); err != nil {
		t.Fatalf("the first load wrote no mapped file: %v", err)
	}
	second, got := load()
	if !second.mapped {
		t.Fatal("the second load read the shards again")
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%q: the mapped weights embed differently", texts[i])
		}
	}
	shard := filepath.Join(dir, "group1-shard1of7")
	later := time.Now().Add(time.Minute)
	os.Chtimes(shard, later, later)
	if m, _ := load(); m.mapped {
		t.Error("after a shard changed, the stale mapped file was used")
	}
	if m, _ := load(); !m.mapped {
		t.Error("the mapped file was not written again after the shard changed")
	}
	os.Truncate(filepath.Join(dir, mappedFile), 4096)
	if m, vs := load(); m.mapped || !slices.Equal(vs[0], want[0]) {
		t.Errorf("a cut mapped file: mapped %v; want the shards, and the same vectors", m.mapped)
	}
}

// parseVocab reads the installed vocab.json, and pieces with escapes and
// odd numbers, exactly as encoding/json does, and gives up (for the general
// decoder) on anything outside its shape.
func TestTokenizer_VocabParsedAsJSONDoes(t *testing.T) {
	inputs := []string{
		`[["a",-1.5],["\u00e9\"q\\",0],["▁the",-3.56637144089], ["x" , 2e-3 ],["n",null]]`,
		`[]`,
	}
	if data, err := os.ReadFile(filepath.Join(modelDir(t), "vocab.json")); err == nil {
		inputs = append(inputs, string(data))
	}
	for _, in := range inputs {
		got, ok := parseVocab([]byte(in))
		var want [][]any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || len(got) != len(want) {
			t.Fatalf("parseVocab: ok %v, %d entries; encoding/json: %d", ok, len(got), len(want))
		}
		for i := range want {
			score, _ := want[i][1].(float64) // null is a score of 0
			if got[i].piece != want[i][0] || got[i].score != score || got[i].skip {
				t.Fatalf("entry %d: %+v, encoding/json %v", i, got[i], want[i])
			}
		}
	}
	for _, in := range []string{`{"a":1}`, `[["a"]]`, `[["a",1,2]]`, `[["a",1]] x`, `[["a",1],]`, "[[\"\xff\",1]]", `[["a",nul]]`} {
		if _, ok := parseVocab([]byte(in)); ok {
			t.Errorf("parseVocab(%q) accepted it", in)
		}
	}
}

// A vocab.json outside parseVocab's shape goes through encoding/json with
// the same rules: the reserved ids are skipped whatever they hold, an empty
// entry keeps its id, a missing or null score is 0, and a piece that is not
// a string is an error naming its entry. The plain shape, read either way,
// gives the same entries (newTokenizer builds from them alike).
func TestTokenizer_GeneralShapeDecodes(t *testing.T) {
	general := `[[], [1], ["</s>"], [], [], [], ["ab", -1, "extra"], [], ["a"], ["b", null]]`
	if _, ok := parseVocab([]byte(general)); ok {
		t.Fatal("parseVocab read a shape it should leave to encoding/json")
	}
	tok, err := newTokenizer([]byte(general))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]piece{"ab": {6, -1}, "a": {8, 0}, "b": {9, 0}}
	if !reflect.DeepEqual(tok.pieces, want) || tok.maxLen != 2 {
		t.Errorf("pieces %v (longest %d), want %v (longest 2)", tok.pieces, tok.maxLen, want)
	}
	if _, err := newTokenizer([]byte(`[[],[],[],[],[],[],["a",1],[7,1]]`)); err == nil || !strings.Contains(err.Error(), "entry 7") {
		t.Errorf("a piece that is not a string: %v, want an error naming entry 7", err)
	}

	plain := []byte(`[["<unk>",0],["<s>",0],["</s>",0],["x",0],["y",0],["z",0],["▁the",-3.5],["é\"q",-4],["n",null],["▁the",-9]]`)
	parsed, ok := parseVocab(plain)
	if !ok {
		t.Fatal("parseVocab refused the plain shape")
	}
	decoded, err := decodeVocab(plain)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parsed, decoded) {
		t.Errorf("parseVocab's entries %+v, encoding/json's %+v", parsed, decoded)
	}
}
