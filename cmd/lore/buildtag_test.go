package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build without -tags sqlite_fts5 must not produce a binary that fails at
// its first command ("no such module: fts5"): it must fail to compile, with
// an undefined name that says which tag to use. Compiling without the tag
// would rebuild SQLite (minutes), so this checks it statically: the files a
// tagless build selects refer to a name that none of them declares, and that
// name names the tag.
func TestBuildWithoutTheFTS5TagFailsToCompile(t *testing.T) {
	ctx := build.Default
	ctx.BuildTags = nil
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string]bool{}
	var used []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(".", name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(".", name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				declared[d.Name.Name] = true
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							declared[n.Name] = true
						}
						for _, v := range sp.Values {
							if id, ok := v.(*ast.Ident); ok && strings.Contains(id.Name, "sqlite_fts5") {
								used = append(used, id.Name)
							}
						}
					case *ast.TypeSpec:
						declared[sp.Name.Name] = true
					}
				}
			}
		}
	}
	if len(used) == 0 {
		t.Fatal("a tagless build has no guard: it would build a binary that fails at its first command")
	}
	for _, u := range used {
		if declared[u] {
			t.Fatalf("%s is declared: a tagless build would compile", u)
		}
	}
}
