package journal

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Journal reads and writes journal notes of one vault, as one project.
type Journal struct {
	ix      vault.Lister
	st      vault.Rememberer
	project string
	clock   func() time.Time
}

// New returns the journal of the vault ix follows, writing as project.
func New(ix vault.Lister, st vault.Rememberer, project string) *Journal {
	return &Journal{ix: ix, st: st, project: project, clock: time.Now}
}

// SetClock replaces the clock (tests).
func (j *Journal) SetClock(now func() time.Time) { j.clock = now }

// Now is the now tool's data.
type Now struct {
	UTCRFC3339         string `json:"utc_rfc3339"`
	UTCTs              int64  `json:"utc_ts"`
	LocalRFC3339       string `json:"local_rfc3339"`
	LocalOffsetSeconds int    `json:"local_offset_seconds"`
	LocalOffsetMinutes int    `json:"local_offset_minutes"`
}

// Now returns the current time, UTC and local, to the second.
func (j *Journal) Now() Now {
	t := j.clock().Truncate(time.Second)
	_, off := t.Local().Zone()
	return Now{UTCRFC3339: t.UTC().Format(time.RFC3339), UTCTs: t.Unix(), LocalRFC3339: t.Local().Format(time.RFC3339),
		LocalOffsetSeconds: off, LocalOffsetMinutes: off / 60}
}

// CheckNamespace validates {userId}/{projectId} as NormalizeNamespace reads it.
func CheckNamespace(ns string) error {
	_, err := NormalizeNamespace(ns)
	return err
}

// NormalizeNamespace reads a namespace as the spec does: '\' is '/', and
// empty, "." and ".." segments are ignored ("u1\p1", "u1//p1" and "./u1/p1"
// are all "u1/p1"); what is left must be exactly two segments, each a valid
// folder name. A segment with a character a folder name cannot hold is
// refused with an error that names it rather than rewritten, so two
// namespaces never land in one folder unnoticed.
func NormalizeNamespace(ns string) (string, error) {
	if strings.TrimSpace(ns) == "" {
		return "", vault.Errorf(vault.CodeInvalid, "namespace is required: {userId}/{projectId}")
	}
	var parts []string
	for _, p := range strings.Split(strings.ReplaceAll(ns, `\`, "/"), "/") {
		if p != "" && p != "." && p != ".." {
			parts = append(parts, p)
		}
	}
	if len(parts) != 2 {
		return "", vault.Errorf(vault.CodeInvalid, "namespace %q must be exactly two segments, {userId}/{projectId}; it has %d", ns, len(parts))
	}
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p, "."):
			return "", vault.Errorf(vault.CodeInvalid, "namespace segment %q may not start with a dot", p)
		case len(p) > 64:
			return "", vault.Errorf(vault.CodeInvalid, "namespace segment %q is longer than 64 bytes", p)
		case strings.ContainsAny(p, `:*?"<>|`) || strings.TrimSpace(p) != p || vault.CheckName("namespace", p) != nil:
			return "", vault.Errorf(vault.CodeInvalid, "namespace segment %q holds a character that cannot be part of a folder name", p)
		}
	}
	return parts[0] + "/" + parts[1], nil
}

var (
	isoDate   = lazyre.New(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$`)
	cjkDate   = lazyre.New(`^(\d{4})年(\d{1,2})月(\d{1,2})日$`)
	timeLike  = lazyre.New(`^(\d{4}[-/.]\d{1,2}([-/.]\d{1,2})?([t ].*)?|\d{1,2}:\d{2}(:\d{2})?|\d{4}年(\d{1,2}月(\d{1,2}日)?)?|\d{1,2}月(\d{1,2}日)?|\d{1,2}日|\d{1,2}(am|pm)|today|yesterday|tomorrow|tonight|now|last (week|month|year)|next (week|month|year)|this (week|month|year)|今天|昨天|明天|前天|后天|今晚|现在|本周|上周|下周|本月|上月|下月|今年|去年|明年|刚才)$`)
	derivedKW = lazyre.New(`^(\d{4}年|\d{1,2}月|\d{1,2}日)$`)
)

// Keywords normalizes keywords: trimmed, lower-cased, de-duplicated, time-like
// ones dropped, full dates replaced by their year/month/day keywords.
func Keywords(in []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range in {
		k = strings.ToLower(strings.TrimSpace(k))
		if m := isoDate().FindStringSubmatch(k); m != nil {
			add(m[1] + "年")
			add(strings.TrimLeft(m[2], "0") + "月")
			add(strings.TrimLeft(m[3], "0") + "日")
			continue
		}
		if m := cjkDate().FindStringSubmatch(k); m != nil {
			add(m[1] + "年")
			add(strings.TrimLeft(m[2], "0") + "月")
			add(strings.TrimLeft(m[3], "0") + "日")
			continue
		}
		if derivedKW().MatchString(k) {
			add(k) // a derived keyword, given directly, is kept for matching
			continue
		}
		if timeLike().MatchString(k) {
			continue
		}
		add(k)
	}
	return out
}

// ParseTime reads RFC 3339 or YYYY-MM-DD; endOfDay moves a bare date to its
// last second.
func ParseTime(field, s string, endOfDay bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		if endOfDay {
			t = t.Add(24*time.Hour - time.Second)
		}
		return t, nil
	}
	return time.Time{}, vault.Errorf(vault.CodeInvalid, "%s %q is not a time: use RFC 3339 (2025-07-12T09:30:00+08:00) or YYYY-MM-DD", field, s)
}

// Item is one memory as recall returns it.
type Item struct {
	ID              string   `json:"id"`
	Namespace       string   `json:"namespace"`
	Keywords        []string `json:"keywords"`
	Slice           string   `json:"slice"`
	Diary           string   `json:"diary,omitempty"`
	OccurredAt      string   `json:"occurred_at,omitempty"`
	RecordedAt      string   `json:"recorded_at"`
	Importance      int      `json:"importance,omitempty"`
	Source          string   `json:"source,omitempty"`
	MatchedKeywords []string `json:"matched_keywords,omitempty"`
	Path            string   `json:"path"`
	DraftID         string   `json:"draft_id,omitempty"`
	when            time.Time
}

type noteFront struct {
	Namespace  string   `yaml:"namespace"`
	Keywords   []string `yaml:"keywords"`
	OccurredAt string   `yaml:"occurred_at"`
	RecordedAt string   `yaml:"recorded_at"`
	Importance int      `yaml:"importance"`
	Source     string   `yaml:"source"`
}

const diaryHeading = "\n## " + vault.JournalDiaryHeading + "\n"

// parseNote reads a journal note back; ok is false for a file that is not one.
func parseNote(r vault.Loaded) (Item, bool) {
	c := strings.ReplaceAll(r.Content, "\r\n", "\n")
	if !strings.HasPrefix(c, "---\n") {
		return Item{}, false
	}
	end := strings.Index(c[4:], "\n---\n")
	if end < 0 {
		return Item{}, false
	}
	var f noteFront
	if yaml.Unmarshal([]byte(c[4:4+end]), &f) != nil || f.Namespace == "" {
		return Item{}, false
	}
	body := c[4+end+5:]
	if i := strings.Index(body, "\n"); strings.HasPrefix(body, "# ") && i >= 0 {
		body = body[i+1:]
	}
	slice, diary := body, ""
	if i := strings.Index(body, diaryHeading); i >= 0 {
		slice, diary = body[:i], body[i+len(diaryHeading):]
	}
	it := Item{ID: r.ResourceID, Namespace: f.Namespace, Keywords: f.Keywords, Slice: strings.TrimSpace(slice), Diary: strings.TrimSpace(diary),
		OccurredAt: f.OccurredAt, RecordedAt: f.RecordedAt, Importance: f.Importance, Source: f.Source, Path: r.Path, DraftID: r.DraftID}
	if it.Keywords == nil {
		it.Keywords = []string{}
	}
	it.when, _ = time.Parse(time.RFC3339, f.RecordedAt)
	if f.OccurredAt != "" {
		if t, err := ParseTime("occurred_at", f.OccurredAt, false); err == nil {
			it.when = t
		}
	}
	return it, true
}

func folder(ns string) string { return "journal/" + ns + "/" }

// items reads every note under prefix.
func (j *Journal) items(ctx context.Context, prefix string) ([]Item, error) {
	rs, err := j.ix.Under(ctx, prefix, j.project)
	if err != nil {
		return nil, err
	}
	var out []Item
	for _, r := range rs {
		if it, ok := parseNote(r); ok {
			out = append(out, it)
		}
	}
	return out, nil
}

// KeywordList is keywords_list's data.
type KeywordList struct {
	Namespace string   `json:"namespace"`
	Total     int      `json:"total"`
	Keywords  []string `json:"keywords"`
}

// KeywordsList lists a namespace's keywords, shortest first.
func (j *Journal) KeywordsList(ctx context.Context, ns string) (KeywordList, error) {
	ns, err := NormalizeNamespace(ns)
	if err != nil {
		return KeywordList{}, err
	}
	its, err := j.items(ctx, folder(ns))
	if err != nil {
		return KeywordList{}, err
	}
	seen := map[string]bool{}
	kws := []string{}
	for _, it := range its {
		for _, k := range it.Keywords {
			if !seen[k] {
				seen[k] = true
				kws = append(kws, k)
			}
		}
	}
	sortByLength(kws)
	return KeywordList{Namespace: ns, Total: len(kws), Keywords: kws}, nil
}

func sortByLength(kws []string) {
	sort.Slice(kws, func(a, b int) bool {
		la, lb := utf8.RuneCountInString(kws[a]), utf8.RuneCountInString(kws[b])
		if la != lb {
			return la < lb
		}
		return kws[a] < kws[b]
	})
}

// GlobalKeyword is one keyword across namespaces.
type GlobalKeyword struct {
	Keyword    string `json:"keyword"`
	Namespaces int    `json:"namespaces"`
	Items      int    `json:"items"`
}

// GlobalList is keywords_list_global's data.
type GlobalList struct {
	Total             int             `json:"total"`
	ScannedNamespaces int             `json:"scanned_namespaces"`
	Keywords          []GlobalKeyword `json:"keywords"`
}

// KeywordsListGlobal lists keywords across every namespace.
func (j *Journal) KeywordsListGlobal(ctx context.Context) (GlobalList, error) {
	its, err := j.items(ctx, "journal/")
	if err != nil {
		return GlobalList{}, err
	}
	nss := map[string]bool{}
	per := map[string]map[string]bool{}
	count := map[string]int{}
	for _, it := range its {
		nss[it.Namespace] = true
		for _, k := range it.Keywords {
			if per[k] == nil {
				per[k] = map[string]bool{}
			}
			per[k][it.Namespace] = true
			count[k]++
		}
	}
	out := GlobalList{ScannedNamespaces: len(nss), Keywords: []GlobalKeyword{}}
	for k, n := range count {
		out.Keywords = append(out.Keywords, GlobalKeyword{Keyword: k, Namespaces: len(per[k]), Items: n})
	}
	sort.Slice(out.Keywords, func(a, b int) bool {
		x, y := out.Keywords[a], out.Keywords[b]
		if x.Items != y.Items {
			return x.Items > y.Items
		}
		lx, ly := utf8.RuneCountInString(x.Keyword), utf8.RuneCountInString(y.Keyword)
		if lx != ly {
			return lx < ly
		}
		return x.Keyword < y.Keyword
	})
	out.Total = len(out.Keywords)
	return out, nil
}

// RememberInput is remember's arguments.
type RememberInput struct {
	Namespace  string   `json:"namespace"`
	Keywords   []string `json:"keywords"`
	Slice      string   `json:"slice"`
	Diary      string   `json:"diary"`
	OccurredAt *string  `json:"occurred_at,omitempty"`
	Importance *int     `json:"importance,omitempty"`
	Source     *string  `json:"source,omitempty"`
}

// Remembered is remember's data.
type Remembered struct {
	ID         string   `json:"id"`
	Namespace  string   `json:"namespace"`
	Keywords   []string `json:"keywords"`
	RecordedAt string   `json:"recorded_at"`
	OccurredAt string   `json:"occurred_at,omitempty"`
	Path       string   `json:"path"`
	vault.StoreResult
}

// Remember records a memory as a journal note (a Draft, auto-published by default).
func (j *Journal) Remember(ctx context.Context, in RememberInput) (Remembered, error) {
	var err error
	if in.Namespace, err = NormalizeNamespace(in.Namespace); err != nil {
		return Remembered{}, err
	}
	if len(in.Keywords) == 0 {
		return Remembered{}, vault.Errorf(vault.CodeInvalid, "keywords is required: at least one short keyword")
	}
	for i, k := range in.Keywords {
		if strings.TrimSpace(k) == "" {
			return Remembered{}, vault.Errorf(vault.CodeInvalid, "keywords[%d] is blank: every keyword must hold a word", i)
		}
	}
	kws := Keywords(in.Keywords)
	if len(kws) == 0 {
		return Remembered{}, vault.Errorf(vault.CodeInvalid, "keywords holds only time-like keywords, which are ignored; give at least one topic keyword (put the time in occurred_at)")
	}
	if strings.TrimSpace(in.Slice) == "" {
		return Remembered{}, vault.Errorf(vault.CodeInvalid, "slice is required: the important content, in one to three sentences")
	}
	if strings.TrimSpace(in.Diary) == "" {
		return Remembered{}, vault.Errorf(vault.CodeInvalid, "diary is required: the context, reasons and what follows")
	}
	now := j.clock().UTC().Truncate(time.Second)
	front := map[string]any{"namespace": in.Namespace, "keywords": kws, "recorded_at": now.Format(time.RFC3339)}
	out := Remembered{Namespace: in.Namespace, Keywords: kws, RecordedAt: now.Format(time.RFC3339)}
	if in.OccurredAt != nil {
		if _, err := ParseTime("occurred_at", *in.OccurredAt, false); err != nil {
			return Remembered{}, err
		}
		front["occurred_at"] = strings.TrimSpace(*in.OccurredAt)
		out.OccurredAt = strings.TrimSpace(*in.OccurredAt)
	}
	if in.Importance != nil {
		if *in.Importance < 1 || *in.Importance > 5 {
			return Remembered{}, vault.Errorf(vault.CodeInvalid, "importance %d is not 1–5", *in.Importance)
		}
		front["importance"] = *in.Importance
	}
	if in.Source != nil && *in.Source != "" {
		front["source"] = *in.Source
	}
	title := strings.Join(kws[:min(3, len(kws))], " · ")
	body := markdown.FrontmatterBlock(front, "namespace", "keywords", "occurred_at", "recorded_at", "importance", "source") + "# " + title + "\n\n" + strings.TrimSpace(in.Slice) + "\n" + diaryHeading + "\n" + strings.TrimSpace(in.Diary) + "\n"
	base := fmt.Sprintf("%s%s/%s-%s", folder(in.Namespace), now.Format("2006"), now.Format("2006-01-02"), slugOf(kws[0], now))
	desc := firstSentence(in.Slice)
	// Every remember is kept: a name another memory took in the same
	// instant gets a counter (the store refuses a taken path atomically).
	var res vault.StoreResult
	var p string
	for n := 1; ; n++ {
		p = base + ".md"
		if n > 1 {
			p = fmt.Sprintf("%s-%d.md", base, n)
		}
		res, err = j.st.Remember(ctx, j.project, folder(in.Namespace), vault.CreateOp{Path: p, Body: body, Description: &desc})
		if err == nil {
			break
		}
		if !errors.Is(err, vault.ErrPathTaken) || n >= 1000 {
			return Remembered{}, err
		}
	}
	out.ID, out.Path, out.StoreResult = res.ResourceID, p, res
	return out, nil
}

// slugOf names a note file: its first keyword (letters and digits) and a
// time-based suffix that keeps names unique.
func slugOf(kw string, now time.Time) string {
	var b strings.Builder
	for _, r := range kw {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else if b.Len() > 0 {
			b.WriteByte('-')
		}
		if b.Len() > 40 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "memory"
	}
	return s + "-" + strconv.FormatInt(now.UnixNano()/1e6%1e9, 36)
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// RecallInput is recall's arguments.
type RecallInput struct {
	Namespace    string   `json:"namespace"`
	Keywords     []string `json:"keywords,omitempty"`
	Start        *string  `json:"start,omitempty"`
	End          *string  `json:"end,omitempty"`
	Query        *string  `json:"query,omitempty"`
	Limit        *int     `json:"limit,omitempty"`
	IncludeDiary *bool    `json:"include_diary,omitempty"`
}

// Recalled is recall's data.
type Recalled struct {
	Namespace string `json:"namespace"`
	Total     int    `json:"total"` // matches before the limit
	Items     []Item `json:"items"`
}

var timeExpr = lazyre.New(`time\s*(>=|<=|=)\s*(\S+)`)

// Recall returns the namespace's memories that match, best first.
func (j *Journal) Recall(ctx context.Context, in RecallInput) (Recalled, error) {
	var err error
	if in.Namespace, err = NormalizeNamespace(in.Namespace); err != nil {
		return Recalled{}, err
	}
	limit := 20
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return Recalled{}, vault.Errorf(vault.CodeInvalid, "limit %d is not 1–100", *in.Limit)
		}
		limit = *in.Limit
	}
	var from, to time.Time
	if in.Start != nil {
		if from, err = ParseTime("start", *in.Start, false); err != nil {
			return Recalled{}, err
		}
	}
	if in.End != nil {
		if to, err = ParseTime("end", *in.End, true); err != nil {
			return Recalled{}, err
		}
	}
	text := ""
	if in.Query != nil {
		if from, to, text, err = queryWindow(*in.Query, from, to); err != nil {
			return Recalled{}, err
		}
	}
	want := Keywords(in.Keywords)
	its, err := j.items(ctx, folder(in.Namespace))
	if err != nil {
		return Recalled{}, err
	}
	var hits []Item
	for _, it := range its {
		it, ok := it.match(from, to, text, want)
		if !ok {
			continue
		}
		if in.IncludeDiary == nil || !*in.IncludeDiary {
			it.Diary = ""
		}
		hits = append(hits, it)
	}
	sort.SliceStable(hits, func(a, b int) bool {
		x, y := hits[a], hits[b]
		if len(x.MatchedKeywords) != len(y.MatchedKeywords) {
			return len(x.MatchedKeywords) > len(y.MatchedKeywords)
		}
		if x.Importance != y.Importance {
			return x.Importance > y.Importance
		}
		return x.when.After(y.when)
	})
	out := Recalled{Namespace: in.Namespace, Total: len(hits), Items: []Item{}}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out.Items = append(out.Items, hits...)
	return out, nil
}

// queryWindow narrows [from, to] by the query's time expressions
// (time>=T, time<=T, time=A..B) and returns the query's text without them,
// lower-cased.
func queryWindow(q string, from, to time.Time) (time.Time, time.Time, string, error) {
	for _, m := range timeExpr().FindAllStringSubmatch(q, -1) {
		switch m[1] {
		case ">=":
			t, err := ParseTime("query time>=", m[2], false)
			if err != nil {
				return from, to, "", err
			}
			from = laterOf(from, t)
		case "<=":
			t, err := ParseTime("query time<=", m[2], true)
			if err != nil {
				return from, to, "", err
			}
			to = earlierOf(to, t)
		case "=":
			a, b, ok := strings.Cut(m[2], "..")
			if !ok {
				return from, to, "", vault.Errorf(vault.CodeInvalid, "query time=%s: write a range as time=START..END", m[2])
			}
			ta, err := ParseTime("query time range start", a, false)
			if err != nil {
				return from, to, "", err
			}
			tb, err := ParseTime("query time range end", b, true)
			if err != nil {
				return from, to, "", err
			}
			from, to = laterOf(from, ta), earlierOf(to, tb)
		}
	}
	text := strings.ToLower(strings.TrimSpace(timeExpr().ReplaceAllString(q, " ")))
	return from, to, text, nil
}

// match reports whether it falls in [from, to] (a zero end is open), holds
// text, and carries one of the keywords want (when any is asked for), and
// returns it with the keywords it matched.
func (it Item) match(from, to time.Time, text string, want []string) (Item, bool) {
	if !from.IsZero() && it.when.Before(from) || !to.IsZero() && it.when.After(to) {
		return it, false
	}
	if text != "" && !strings.Contains(strings.ToLower(it.Slice+"\n"+it.Diary+"\n"+it.Source), text) {
		return it, false
	}
	if len(want) > 0 {
		have := map[string]bool{}
		for _, k := range it.Keywords {
			have[k] = true
		}
		for _, k := range want {
			if have[k] {
				it.MatchedKeywords = append(it.MatchedKeywords, k)
			}
		}
		if len(it.MatchedKeywords) == 0 {
			return it, false
		}
	}
	return it, true
}

func laterOf(a, b time.Time) time.Time {
	if a.IsZero() || b.After(a) {
		return b
	}
	return a
}

func earlierOf(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// Text renders recall's data as the one-shot CLI's --text summary.
func (r Recalled) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d memories", r.Namespace, r.Total)
	if len(r.Items) < r.Total {
		fmt.Fprintf(&b, " (showing %d)", len(r.Items))
	}
	b.WriteString("\n")
	for _, it := range r.Items {
		when := it.OccurredAt
		if when == "" {
			when = it.RecordedAt
		}
		fmt.Fprintf(&b, "- [%s] %s", when, strings.Join(it.Keywords, ", "))
		if it.Importance > 0 {
			fmt.Fprintf(&b, " (importance %d)", it.Importance)
		}
		fmt.Fprintf(&b, "\n  %s\n", strings.ReplaceAll(it.Slice, "\n", "\n  "))
		if it.Diary != "" {
			fmt.Fprintf(&b, "  diary: %s\n", strings.ReplaceAll(it.Diary, "\n", "\n  "))
		}
	}
	return b.String()
}
