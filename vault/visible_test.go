package vault

import "testing"

func TestSaysNothing(t *testing.T) {
	for md, want := range map[string]bool{
		"%% ----- Badges ----- %%\n\n![a](https://img.shields.io/x)   \n![b](https://img.shields.io/y)\n\n%% end %%": true,
		"# Heading\n\n<!-- a comment -->\n![[diagram.png]]\n":                                                        true,
		"# Heading\n\nOne word.\n":                   false,
		"### Refunds\n\n![[Refund policy#^block]]\n": false, // an embed of a note shows its text
		"%% multi\nline %% 42":                       false,
		"":                                           true,
	} {
		if got := SaysNothing(md); got != want {
			t.Errorf("SaysNothing(%q) = %v, want %v", md, got, want)
		}
	}
	for target, want := range map[string]bool{"diagram.png": true, "Refund policy#^x": false, "note.md": false, "a.pdf|200": true, "v1.2 notes": false} {
		if got := IsAttachmentTarget(target); got != want {
			t.Errorf("IsAttachmentTarget(%q) = %v, want %v", target, got, want)
		}
	}
}

func TestReadableText(t *testing.T) {
	for in, want := range map[string]string{
		"[Edit In GitHub](https://github.dev/hub/blob/main/Dropbox%20Backups.md \"edit\") | [Copy](<a b.md>)": "[Edit In GitHub] | [Copy]",
		"%% Add a description below this line %%\nReal text.":                                                 " \nReal text.",
		"<span class=\"git-footer\">footer</span> ![badge](https://img.shields.io/x)":                         " footer  ![badge]",
		"plain (with parentheses) and a path/to/file.md":                                                      "plain (with parentheses) and a path/to/file.md",
		"[[wikilink|shown]] stays": "[[wikilink|shown]] stays",
	} {
		if got := ReadableText(in); got != want {
			t.Errorf("ReadableText(%q) = %q, want %q", in, got, want)
		}
	}
}
