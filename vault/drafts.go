package vault

import (
	"strings"
	"time"
)

// The write side's words: a Draft as people review it, the operations it
// carries, and what a merge and a sync did. Package drafts makes them.

// Draft is one project's proposed change to one resource: the branch
// drafts/<project>/<draft_id>, one commit per store call.
type Draft struct {
	ID         string           `json:"draft_id"`
	Project    string           `json:"project"`
	Branch     string           `json:"branch"`
	Head       string           `json:"head"` // the commit the Draft is at (its diff shows it; a merge names it)
	ResourceID string           `json:"resource_id"`
	Path       string           `json:"path"` // the resource's path in the Draft ("" when deleted)
	Operations []DraftOperation `json:"operations"`
	Merged     bool             `json:"merged"` // its head is in the org ref's history
	Paths      []string         `json:"changed_paths"`
	Updated    time.Time        `json:"updated_at"`
	// Author is who made the Draft (its first commit's author, as git
	// records it); Host the machine its first store ran on (the commit's
	// Lore-Host trailer; "" for Drafts of an older lore).
	Author string `json:"author,omitempty"`
	Host   string `json:"host,omitempty"`
	// MadeHere: a store on this machine made every one of its commits (the
	// outbox logged each commit's hash). Author and Host are what the
	// commits claim, which anyone with push rights can write; MadeHere is
	// what this machine knows.
	MadeHere bool `json:"made_here"`
}

// DraftOperation is one store call recorded on a Draft (one commit).
type DraftOperation struct {
	LocalOperationID string    `json:"local_operation_id"`
	Op               string    `json:"op"`
	Path             string    `json:"path"`
	Description      string    `json:"description,omitempty"`
	At               time.Time `json:"at"`
	Commit           string    `json:"commit"`
}

// MergeResult says what a merge did.
type MergeResult struct {
	Merged  []string `json:"merged"`            // draft ids now in the org ref
	Skipped []string `json:"skipped,omitempty"` // already merged (e.g. by a person's git merge)
	OrgRef  string   `json:"org_ref"`
	Commit  string   `json:"commit"` // the org ref's new head
	// WorkTree: "updated" (it was on the org branch and clean), or why it was
	// left alone ("not on <branch>").
	WorkTree string `json:"work_tree"`
}

// ShortID is a Draft id as lore prints it for people: long enough to be
// unique among ds, and at least 12 characters (drf_ and 8 of its ULID).
func ShortID(id string, ds []Draft) string {
	for n := min(12, len(id)); n < len(id); n++ {
		unique := true
		for _, d := range ds {
			if d.ID != id && strings.HasPrefix(d.ID, id[:n]) {
				unique = false
				break
			}
		}
		if unique {
			return id[:n]
		}
	}
	return id
}
