package guard

import (
	"fmt"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// BenchmarkCheck1000x200: a 1,000-line diff (20 files of 50 added lines)
// against 200 rules (deny regexps and literals, some scoped by globs, some
// require rules), in process.
func BenchmarkCheck1000x200(b *testing.B) {
	var specs []vault.RuleSpec
	for i := 0; i < 200; i++ {
		s := vault.RuleSpec{ID: fmt.Sprintf("r%d", i), Kind: "deny", Severity: "error"}
		switch i % 4 {
		case 0:
			s.Pattern = fmt.Sprintf(`forbidden_call_%d\(`, i)
		case 1:
			s.Pattern, s.Literal = fmt.Sprintf("legacy.Client%d{", i), true
		case 2:
			s.Pattern, s.Paths = fmt.Sprintf(`import .*/internal/old%d`, i), []string{"**/*.go"}
		case 3:
			s.Kind, s.Pattern, s.Paths = "require", `(?m)^// Copyright`, []string{fmt.Sprintf("pkg%d/**", i)}
		}
		specs = append(specs, s)
	}
	rs := Compile([]Source{{ResourceID: "mem_x", Path: "decisions/x.md", Status: "active", Rules: specs}}, "")
	if len(rs.Broken) > 0 {
		b.Fatal(rs.Broken)
	}
	var files []FileDiff
	for f := 0; f < 20; f++ {
		fd := FileDiff{NewPath: fmt.Sprintf("pkg%d/file%d.go", f, f), OldPath: fmt.Sprintf("pkg%d/file%d.go", f, f)}
		for l := 0; l < 50; l++ {
			fd.Added = append(fd.Added, Line{N: l + 1, Text: fmt.Sprintf("\tresult, err := client.DoSomething(ctx, request%d, options) // line %d", l, l)})
		}
		files = append(files, fd)
	}
	content := func(string) ([]byte, bool) { return []byte("// Copyright 2026\npackage x\n"), true }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep := rs.Check(files, content, false)
		if !rep.OK {
			b.Fatal(rep.Violations[0])
		}
	}
}
