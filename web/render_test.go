package web

import (
	"strings"
	"testing"
)

// renderNote shows wikilinks, and Markdown links and embeds of notes, as
// links to the notes they name (and an unknown one as missing), with their
// display text, never loads a remote image, keeps a dangerous URL out of a
// link, and leaves wikilinks in code alone.
func TestRenderNote_WikilinksImagesAndCode(t *testing.T) {
	names := map[string]string{"Configuration folder": "mem_cfg", "Refund policy": "mem_refund"}
	resolve := func(target string) string { return names[strings.TrimSuffix(target, ".md")] }
	for src, want := range map[string][]string{
		"See [[Configuration folder|config folder]].":             {`<a class="wikilink" href="/note/mem_cfg" data-note="mem_cfg">config folder</a>`},
		"See [[Refund policy#Discounts]].":                        {`href="/note/mem_refund#discounts"`, `>Refund policy &gt; Discounts</a>`},
		"See [[#Discounts]] and ![[Refund policy#^x1]].":          {`href="#discounts"`, `>Discounts</a>`, `>↳ Refund policy &gt; ^x1</a>`},
		"See [[Nowhere]].":                                        {`<span class="wikilink missing"`, `>Nowhere</span>`},
		"![[Refund policy]]":                                      {`class="wikilink embed"`, `↳ Refund policy`},
		"![[diagram.png]]":                                        {`<img class="attachment" alt="diagram.png" data-attachment="diagram.png">`},
		"![logo](https://example.invalid/logo.png)":               {`remote image not loaded: logo`},
		"![local](img/a%20b.png)":                                 {`data-attachment="img/a b.png"`},
		"`[[Configuration folder]]` in code":                      {`<code>[[Configuration folder]]</code>`},
		"Text <script>alert(1)</script> [[Configuration folder]]": {`href="/note/mem_cfg"`},
		"See [the policy](Refund%20policy.md#Discounts).":         {`<a class="wikilink" href="/note/mem_refund#discounts" data-note="mem_refund">the policy</a>`},
		"![](<Refund policy.md>)":                                 {`<a class="wikilink embed" href="/note/mem_refund" data-note="mem_refund">↳ Refund policy.md</a>`},
		"[gone](Nowhere.md) and ![x](Nowhere.md)":                 {`<span class="wikilink missing" title="no note is at Nowhere.md">gone</span>`, `>↳ x</span>`},
		"[site](https://example.com/a.md) [pdf](docs/manual.pdf)": {`<a href="https://example.com/a.md">site</a>`, `<a href="docs/manual.pdf">pdf</a>`},
		"[**bold** link](Refund%20policy.md \"t\")":               {`data-note="mem_refund"><strong>bold</strong> link</a>`},
		"[x](javascript:alert(1)) [y](../../out.md)":              {`<a href="">x</a>`, `<a href="../../out.md">y</a>`},
	} {
		got := renderNote(src, "notes/here.md", resolve)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("renderNote(%q) = %q; want it to hold %q", src, got, w)
			}
		}
		if strings.Contains(got, "<script") || strings.Contains(got, "javascript:") || strings.Contains(got, "https://example.invalid/logo.png\"") && strings.Contains(got, "<img") && strings.Contains(got, "src=") {
			t.Errorf("renderNote(%q) = %q: raw HTML or a remote image made it through", src, got)
		}
	}
}
