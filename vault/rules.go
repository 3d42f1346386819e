package vault

import (
	"time"
)

// RuleSpec is one guard rule as a resource writes it, before the guard
// package compiles it. A rule either denies a pattern in added lines or
// requires it in touched files.
//
// In frontmatter:
//
//	guard:
//	  - id: no-force-push
//	    deny: "push.*--force"       # or require: …; a Go regular expression
//	    literal: true               # optional: the pattern is plain text
//	    paths: ["scripts/**", "*.sh"]
//	    message: Never force-push the org ref.
//	    severity: error             # or warn; default error
//
// In the body, under a heading that names rules (Rules, Invariants, Guard,
// 规则, 铁律, 不变量 …): bullet lines "- deny: TEXT" or "- require: TEXT".
// Body patterns are literal text (backquotes around them are dropped), or a
// regular expression when written /like this/; they apply to every file,
// with severity error, and the bullet's resource is their message.
type RuleSpec struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"` // deny or require
	Pattern  string   `json:"pattern"`
	Literal  bool     `json:"literal,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Message  string   `json:"message,omitempty"`
	Severity string   `json:"severity"` // error or warn
	Line     int      `json:"line,omitempty"`
	Form     string   `json:"form"` // frontmatter or body
	// Problem says why the rule as written cannot be used (a missing pattern,
	// an unknown severity, …); the guard reports it as broken.
	Problem string `json:"problem,omitempty"`
	// Unreadable: the note holds rules that cannot be read at all (its
	// frontmatter does not parse); the guard fails closed on it.
	Unreadable bool `json:"unreadable,omitempty"`
}

// RuleSource is a resource of the Effective Memory that writes guard rules
// or carries a tier, with what the guard and the loadout need of it.
type RuleSource struct {
	ResourceID  string
	Path        string
	Title       string
	Description string
	Status      string
	Tier        string
	Tags        []string
	DraftID     string
	Rules       []RuleSpec
}

// RecentNote is a log or decision note for the loadout's recent section.
type RecentNote struct {
	Path, Title, Description string
	Date                     time.Time // from a YYYY-MM-DD in the file name, else the file's time
}
