package termtext

import (
	"bytes"
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\nand a tab\t.":         "plain text\nand a tab\t.",
		"中文和 emoji 👩‍💻":                    "中文和 emoji 👩‍💻",
		"\x1b[2J\x1b[3J\x1b[H":             "^[[2J^[[3J^[[H",
		"\x1b]0;title\x07":                 "^[]0;title^G",
		"\x1b]52;c;ZXZpbA==\x1b\\":         "^[]52;c;ZXZpbA==^[\\",
		"good\rbad":                        "good^Mbad",
		"del\x7f":                          "del^?",
		"c1 \u009b2J":                      "c1 <U+009B>2J",
		"bidi \u202eevil":                  "bidi <U+202E>evil",
		"bad \xff byte":                    "bad <0xFF> byte",
		"FR\u200bOM stays (not a control)": "FR\u200bOM stays (not a control)",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMark_ShowsInvisibleFormatCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"FR\u200bOM":      "FR<U+200B>OM",
		"FR\u2060OM":      "FR<U+2060>OM",
		"FR\u00adOM":      "FR<U+00AD>OM",
		"a\u00a0b":        "a<U+00A0>b",
		"\ufeffbom":       "<U+FEFF>bom",
		"SELECT \\* FROM": "SELECT \\* FROM",
	} {
		if got := Mark(in); got != want {
			t.Errorf("Mark(%q) = %q, want %q", in, got, want)
		}
		if HasInvisible(in) != (in != want) {
			t.Errorf("HasInvisible(%q) = %v", in, HasInvisible(in))
		}
	}
}

// TestWriter_SequencesSplitAcrossWrites: a C1 control or a bidi control
// split over two writes is still shown, and ordinary text split mid-rune
// comes out whole.
func TestWriter_SequencesSplitAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	w := &Writer{W: &b}
	for _, part := range []string{"a\xc2", "\x9bb \xe2\x80", "\xae c 中", "文\x1b", "[H"} {
		w.Write([]byte(part))
	}
	w.Flush()
	if got, want := b.String(), "a<U+009B>b <U+202E> c 中文^[[H"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	b.Reset()
	w.Write([]byte("end \xe4\xb8"))
	w.Flush()
	if got := b.String(); !strings.HasPrefix(got, "end <0xE4>") || strings.ContainsRune(got, 0x1b) {
		t.Errorf("a cut rune at the end: %q", got)
	}
}
