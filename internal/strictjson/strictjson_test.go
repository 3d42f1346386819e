package strictjson

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

type strictOp struct {
	Op struct {
		Load *struct {
			IDs         []string          `json:"ids"`
			KnownHashes map[string]string `json:"knownHashes,omitempty"`
		} `json:"load,omitempty"`
	} `json:"op"`
}

func TestDecode(t *testing.T) {
	var ok strictOp
	if err := Decode([]byte(`{"op":{"load":{"ids":["a"],"knownHashes":{"a":"sha256:x"}}}}`), &ok); err != nil {
		t.Fatal(err)
	}
	if ok.Op.Load == nil || ok.Op.Load.IDs[0] != "a" || ok.Op.Load.KnownHashes["a"] != "sha256:x" {
		t.Fatalf("decoded %+v", ok)
	}
	for in, want := range map[string]string{
		`{"op":{"load":{"ids":["a"],"known_hashes":{}}}}`: "unknown field op.load.known_hashes",
		`{"op":{"Load":{"ids":["a"]}}}`:                   "unknown field op.Load",
		`{"op":{"load":{"ids":null}}}`:                    "op.load.ids is null",
		`{"op":{"load":{"ids":["a",null]}}}`:              "op.load.ids[1] is null",
		`{"op":{"load":{"ids":"a"}}}`:                     "op.load.ids: expected an array",
		`{"op":{"load":{"ids":[1]}}}`:                     "expected a string",
		`{"op":{"load":{"ids":["a"]},"load":{}}}`:         "op.load is given twice",
		`{"op":{}} {}`:                                    "after the JSON value",
		`{"op":{"load":`:                                  "ends too early",
		`[]`:                                              "expected an object, got an array",
	} {
		var v strictOp
		err := Decode([]byte(in), &v)
		if err == nil || vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}
