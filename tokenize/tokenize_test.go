package tokenize

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	kljensen "github.com/kljensen/snowball/english"

	"github.com/lore-memory/lore/eval/synth"
)

func allTerms(s string) []string {
	var out []string
	terms(s, func(t string) { out = append(out, t) })
	return out
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello, World", []string{"hello", "world"}},
		{"parseConfigFile", []string{"parse", "config", "file", "parseconfigfile"}},
		{"max_retry_count", []string{"max", "retry", "count", "maxretrycount"}},
		{"internal/fts/index.go", []string{"internal", "fts", "index", "go"}},
		{"HTTPServer v2", []string{"http", "server", "httpserver", "v2"}},
		{"sha256 utf8", []string{"sha256", "utf8"}},
		{"检索设计", []string{"检索", "索设", "设计"}},
		{"检", []string{"检"}},
		{"MCP并发控制", []string{"mcp", "并发", "发控", "控制"}},
		{"café Straße", []string{"café", "straße"}},
		{"end. Next", []string{"end", "next"}},
		{"export PDFs", []string{"export", "pdf"}},
		{"the plugin's repository", []string{"the", "plugin", "repository"}},
	} {
		if got := allTerms(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A stop word written in capitals is a name: "ITS" in "change the ITS
// theme" names the Obsidian Hub's ITS Theme, which the query could not find
// while "its" was dropped as a stop word (its term is "it", as in the index). A query in capitals throughout
// says nothing by its case, and a capital at a word's start is no name.
func TestQueryTerms_AStopWordInCapitalsIsAName(t *testing.T) {
	for q, want := range map[string][]string{
		"what can I change in the ITS theme": {"chang", "it", "theme", "changin"},
		"change its theme":                   {"chang", "theme"},
		"Its theme, ITs colors":              {"theme", "color"},
		"ask IT about the VPN":               {"ask", "it", "vpn"},
		"WHAT CAN I CHANGE IN ITS THEME":     {"chang", "theme", "changin"},
		"I want A theme":                     {"want", "theme"},
	} {
		if got := QueryTerms(q); !reflect.DeepEqual(got, want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

// A phrasal verb's two words are also its noun: "backs up my vault" asks
// for a backup, "looking up bible verses" for a lookup, "roll back" for a
// rollback. The joined term comes after the query's own terms; a particle
// after a stop word or a number joins nothing, and a query of stop words
// alone is left as it was. A join that is no word ("changin" in the test
// above) is one more term that matches nothing.
func TestQueryTerms_APhrasalVerbIsAlsoItsNoun(t *testing.T) {
	for q, want := range map[string][]string{
		"a plugin that backs up my vault":     {"plugin", "back", "vault", "backup"},
		"plugins for looking up bible verses": {"plugin", "look", "bibl", "vers", "lookup"},
		"Roll Back the release":               {"roll", "back", "releas", "rollback"},
		"setting up, then logging in":         {"set", "log", "setup", "login"},
		"log in, then log out":                {"log", "login", "logout"},
		"why does it time out":                {"time", "timeout"},
		"give it up":                          {"give"},
		"version 2 on top":                    {"version", "2", "top"},
		"what is it up to":                    {"what", "is", "it", "up", "to"},
	} {
		if got := QueryTerms(q); !reflect.DeepEqual(got, want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestQueryTerms_DropStopWordsUnlessNothingElse(t *testing.T) {
	if got := QueryTerms("how do I release the app"); !reflect.DeepEqual(got, []string{"releas", "app"}) {
		t.Errorf("got %q", got)
	}
	if got := QueryTerms("what is it"); !reflect.DeepEqual(got, []string{"what", "is", "it"}) {
		t.Errorf("stop-word-only query: got %q, want every term kept", got)
	}
}

func TestToken(t *testing.T) {
	for in, want := range map[string]string{
		"retries": "retri", "retrying": "retri", "release": "releas", "released": "releas",
		"café": "cafe", "naïve": "naiv", "über": "uber", "检索": "检索", "sha256": "sha256", "go": "go",
		"parseconfigfile": "parseconfigfil", strings.Repeat("x", 300): strings.Repeat("x", 255),
		strings.Repeat("检", 100): strings.Repeat("检", 85),
	} {
		if got := Token(in); got != want {
			t.Errorf("Token(%.20q) = %.20q (%d bytes), want %.20q", in, got, len(got), want)
		}
	}
}

// A stop word goes into the index once per text; every other token as
// often as it occurs. The memo must give the same as no memo.
func TestIndexTextKeepsOneOfEachStopWord(t *testing.T) {
	in := "The retry and the backoff: the retry budget is what it is. Doing it; do it, isValid"
	want := "the retri and backoff retri budget is what it do valid isvalid"
	memo := NewMemo()
	for i := 0; i < 2; i++ { // twice: the second time from the memo
		if got := memo.Text(in); got != want {
			t.Errorf("Text (memo, pass %d) = %q, want %q", i, got, want)
		}
	}
	if got := Text(in); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := strings.Join(List(in), " "); got != want {
		t.Errorf("List = %q, want %q", got, want)
	}
}

func TestCutQuery(t *testing.T) {
	long := strings.Repeat("检", MaxQueryBytes) // 3 bytes each
	got := CutQuery("  " + long)
	if len(got) > MaxQueryBytes || !strings.HasPrefix(long, got) || len(got) < MaxQueryBytes-3 {
		t.Errorf("cut to %d bytes, want the longest rune-aligned prefix within %d", len(got), MaxQueryBytes)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"parseConfigFile", "检索设计", "a_b-c.d/e:f", "ÀÉÎ", "\xff\xfe", "HTTPServer2Go", "PDFs it's ÉTATs", "2022-01-15 Roundup", "1999-12_x 2024-05"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := allTerms(s), oracleTerms(s); !slices.Equal(got, want) {
			t.Fatalf("terms(%q) = %q, the oracle makes %q", s, got, want)
		}
		for _, term := range allTerms(s) {
			if term == "" || strings.ContainsAny(term, " \t\n\"") {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
		_ = QueryTerms(s)
	})
}

// oracleTerms reads the term rules a second way, with regular expressions
// instead of terms' rune scanner and its ASCII fast paths, so that the two
// agree by the rules and not by shared code: a run of Han or kana gives its
// overlapping pairs (one character: itself); elsewhere a compound is word
// characters (letters, digits, combining marks) joined by single
// connectors, and a lone s or t right after an apostrophe that follows a
// word character is none; each of its segments between '/', '.' and ':'
// gives the parts between '_' and '-' split at camelCase (lower→upper,
// digit→upper, and an acronym's last capital before a lower-case letter
// other than the s that ends the part), a last part of two or more capitals
// and an s without its s, lower-cased, then, when there were several, the
// parts joined.
func oracleTerms(s string) []string {
	var out []string
	last := 0
	for _, m := range oracleCJK.FindAllStringIndex(s, -1) {
		out = append(out, oracleCompounds(s[last:m[0]])...)
		rs := []rune(s[m[0]:m[1]])
		if len(rs) == 1 {
			out = append(out, string(rs))
		}
		for k := 0; k+1 < len(rs); k++ {
			out = append(out, string(rs[k:k+2]))
		}
		last = m[1]
	}
	return append(out, oracleCompounds(s[last:])...)
}

var (
	oracleCJK      = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}]+`)
	oracleCompound = regexp.MustCompile(`[\p{L}\p{Nd}\p{Mn}]+(?:[-_./:][\p{L}\p{Nd}\p{Mn}]+)*`)
	oracleSegments = regexp.MustCompile(`[/.:]`)
	oracleParts    = regexp.MustCompile(`[-_]`)
	oracleCamel    = []*regexp.Regexp{
		regexp.MustCompile(`(\p{Ll})(\p{Lu})`),
		regexp.MustCompile(`(\p{Nd})(\p{Lu})`),
		// an acronym's last capital before a lower-case letter, but not
		// before the s that ends the word: that is the acronym's plural
		regexp.MustCompile(`(\p{Lu})(\p{Lu}(?:[^s\P{Ll}]|s\p{Ll}|s[^\p{Ll}]))`),
	}
	oraclePlural     = regexp.MustCompile(`^\p{Lu}{2,}s$`)
	oracleLoneLetter = regexp.MustCompile(`^[sStT]$`)
	oracleApostrophe = regexp.MustCompile(`[\p{L}\p{Nd}\p{Mn}]['’]$`)
)

func oracleCompounds(s string) []string {
	var out []string
	for _, m := range oracleCompound.FindAllStringIndex(s, -1) {
		c := s[m[0]:m[1]]
		if oracleLoneLetter.MatchString(c) && oracleApostrophe.MatchString(s[:m[0]]) {
			continue
		}
		for _, seg := range oracleSegments.Split(c, -1) {
			var parts []string
			for _, w := range oracleParts.Split(seg, -1) {
				for changed := true; changed; {
					before := w
					for _, re := range oracleCamel {
						w = re.ReplaceAllString(w, "${1} ${2}")
					}
					changed = w != before
				}
				ws := strings.Fields(w)
				if last := len(ws) - 1; last >= 0 && oraclePlural.MatchString(ws[last]) {
					ws[last] = strings.TrimSuffix(ws[last], "s")
				}
				parts = append(parts, ws...)
			}
			for _, p := range parts {
				out = append(out, strings.ToLower(p))
			}
			if len(parts) > 1 {
				out = append(out, strings.ToLower(strings.Join(parts, "")))
				if m := oracleDate.FindStringSubmatch(parts[0] + "-" + parts[1]); m != nil && m[1] != "05" {
					n, _ := strconv.Atoi(m[1])
					out = append(out, strings.ToLower(time.Month(n).String()))
				}
			}
		}
	}
	return out
}

// oracleDate is a compound's first two parts when they are a year and a month.
var oracleDate = regexp.MustCompile(`^(?:19|20)[0-9]{2}-(0[1-9]|1[0-2])$`)

// TestTermsByHand pins the rules on cases written out by hand.
func TestTermsByHand(t *testing.T) {
	for in, want := range map[string]string{
		"parseConfigFile":       "parse config file parseconfigfile",
		"parseHTTPServer2":      "parse http server2 parsehttpserver2",
		"max_retry_count":       "max retry count maxretrycount",
		"internal/fts/index.go": "internal fts index go",
		"sha256 utf8":           "sha256 utf8",
		"检索设计":                  "检索 索设 设计",
		"漢":                     "漢",
		"a漢b":                   "a 漢 b",
		"a- -b":                 "a b",
		"Über-Straße":           "über straße überstraße",
		"2X":                    "2 x 2x",
		"PDFs and APIs":         "pdf and api",
		"IDs miRNAs ABsC Xs":    "id mi rna mirna a bs c absc xs",
		"the plugin's name":     "the plugin name",
		"don’t IT'S it's_x":     "don it it s x sx",
		"漢's 's":                "漢 s s",
		"2022-01-15 Roundup":    "2022 01 15 20220115 january roundup",
		"2024-03-lost-edits":    "2024 03 lost edits 202403lostedits march",
		"2024-13-01 1899-05":    "2024 13 01 20241301 1899 05 189905",
		"2022-05-07 2022-12":    "2022 05 07 20220507 2022 12 202212 december",
	} {
		if got := strings.Join(allTerms(in), " "); got != want {
			t.Errorf("terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsMatchTheOracle: terms makes exactly what oracleTerms makes, on
// hand-picked edge cases, the CJK and demo vaults and generated queries.
func TestTermsMatchTheOracle(t *testing.T) {
	inputs := []string{"parseConfigFile", "检索设计", "a_b-c.d/e:f", "ÀÉÎ", "\xff\xfe", "HTTPServer2Go",
		"PDFs APIs ÉTATs ªABs ABss ABsC miRNAs x's y’T 漢's 's é's it's’ a'sé", "don't", "plugin's-x",
		"internal/fts/index.go max_retry_count The Sentence. 2X a-", "x/ y_ _z 検索ｶﾀｶﾅ 漢 a漢b", "naïve café Über-Straße"}
	for _, dir := range []string{"../testdata/cjk", "../testdata/demo-vault"} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil {
					inputs = append(inputs, string(b))
				}
			}
			return nil
		})
	}
	inputs = append(inputs, synth.Queries(50, 3)...)
	for _, in := range inputs {
		if got, want := allTerms(in), oracleTerms(in); !slices.Equal(got, want) {
			t.Fatalf("terms(%.60q):\n got %q\nwant %q", in, got, want)
		}
	}
}

// BenchmarkIndexText tokenizes generated notes on every core, as a cold
// index does.
func BenchmarkIndexText(b *testing.B) {
	texts := synth.Texts(4096, 40, 9) // ~10 MB: a vault's worth of vocabulary
	for _, memo := range []bool{false, true} {
		b.Run(fmt.Sprintf("memo=%v", memo), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				var m Memo
				if memo {
					m = NewMemo()
				}
				i := 0
				for pb.Next() {
					_ = m.Text(texts[i%len(texts)])
					i++
				}
			})
		})
	}
}

// The index's stems come from blevesearch/snowballstem since format lore-11;
// they were kljensen/snowball's before. Both implement Porter2, and they
// must agree on every word Token() stems (lower-case ASCII letters, 3 to 64
// bytes) or an index and its queries would disagree: on the fixtures'
// words and on words built from the suffixes and special cases every step
// of the algorithm tests.
func TestPorter2MatchesKljensen(t *testing.T) {
	words := map[string]bool{}
	for _, dir := range []string{"../testdata/cjk", "../testdata/demo-vault"} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil {
					for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return r < 'a' || r > 'z' }) {
						words[w] = true
					}
				}
			}
			return nil
		})
	}
	parts := strings.Fields(`a e i o u y b c d g h l n r s t w x ss ies ied ed ing ly li eed edly ingly tional enci anci
		abli entli izer ization ational ation ator alism aliti alli fulness ousli ousness iveness iviti biliti bli ogi fulli
		lessli alize icate iciti ative ical ness ful al ance ence er ic able ible ant ement ment ent ism ate iti ous ive ize
		ion sion tion ll gener commun arsen at bl iz bb dd ff gg mm nn pp rr tt us sky news skis dying lying tying idly
		gently ugly early only singly howe atlas cosmos bias andes inning outing canning herring earring proceed exceed succeed`)
	rng := rand.New(rand.NewPCG(3, 4))
	for len(words) < 200_000 {
		var sb strings.Builder
		for n := 1 + rng.IntN(5); n > 0; n-- {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		words[sb.String()] = true
	}
	for w := range words {
		if len(w) < 3 || len(w) > 64 {
			continue
		}
		if got, want := porter2(w), kljensen.Stem(w, true); got != want {
			t.Errorf("stem(%q) = %q, kljensen/snowball: %q", w, got, want)
		}
	}
}

// TestStopWordNumbers checks the written-out stop-word table against the
// stemmer: two stop words share a number exactly when they share a token,
// the numbers run from 1 without gaps, and there are at most 128 of them
// (the seen set in QueryTerms is two words of bits).
func TestStopWordNumbers(t *testing.T) {
	list := strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself just me more
most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so
some such than that the their theirs them themselves then there these they this those through to too under
until up very was we were what when where which while who whom why will with would you your yours yourself
yourselves`)
	if len(stopWords) != len(list) {
		t.Fatalf("table has %d words, the list %d", len(stopWords), len(list))
	}
	byToken := map[string]uint8{}
	numbers := map[uint8]string{}
	for _, w := range list {
		n, tok := stopWords[w], Token(w)
		if n == 0 {
			t.Fatalf("%q is not in the table", w)
		}
		if m, ok := byToken[tok]; ok && m != n {
			t.Errorf("%q (token %q) is %d, another word of that token is %d", w, tok, n, m)
		}
		if other, ok := numbers[n]; ok && other != tok {
			t.Errorf("%q (token %q) shares number %d with token %q", w, tok, n, other)
		}
		byToken[tok], numbers[n] = n, tok
	}
	for n := uint8(1); int(n) <= len(numbers); n++ {
		if _, ok := numbers[n]; !ok {
			t.Errorf("number %d is unused, the numbers have a gap", n)
		}
	}
	if len(numbers) > 128 {
		t.Errorf("%d stop-word tokens; QueryTerms keeps at most 128 apart", len(numbers))
	}
}

// EachTokenIf lets a caller skip the stemmer for a term whose token cannot
// be the one it looks for (retrieve's cover stage), on the rule that an
// ASCII term's token starts with the term's first byte and is no longer
// than the term. Every term of the demo vault and of English's irregular
// stems holds to it, and EachTokenIf emits what EachToken does for the
// terms it keeps.
func TestEachTokenIf_AnASCIITermsTokenStartsAsItAndIsNoLonger(t *testing.T) {
	var texts []string
	err := filepath.WalkDir("../testdata/demo-vault", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, "dying lying tying skies skis news only early gently ugly idly singly conflated hoping "+
		"generalizations Café naïve résumé ational tional sses ies ied yelling Yesterday y ye")
	checked := 0
	for _, s := range texts {
		var all, kept []string
		EachToken(s, func(tok string, _ bool) { all = append(all, tok) })
		EachTokenIf(s, func(term string) bool {
			if term[0] < utf8.RuneSelf {
				tok := Token(term)
				if tok == "" || tok[0] != term[0] || len(tok) > len(term) {
					t.Errorf("term %q: token %q does not start with its first byte or is longer", term, tok)
				}
				checked++
			}
			return true
		}, func(tok string) { kept = append(kept, tok) })
		if !slices.Equal(all, kept) {
			t.Errorf("EachTokenIf keeping every term emitted %d tokens, EachToken %d", len(kept), len(all))
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d ASCII terms checked", checked)
	}
}
