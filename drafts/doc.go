// Package drafts owns every write lore makes to git: creating a vault's
// repository, Draft branches, the Effective Memory overlay, merge, discard
// and sync. Agents propose, people decide: nothing an agent can call
// (Apply, CreateSuperseding) merges, approves or moves the org ref; Merge
// and Discard are for people (the CLI, the web UI), and a merge names the
// head the person reviewed, so a Draft that moved after the review is not
// merged. The journal's remember (Remember) alone publishes: one new note
// inside its namespace's folder that writes no guard rule.
//
// A Draft is the branch refs/heads/drafts/<project>/<draft_id>, forked
// from the org ref, carrying one project's pending change to one resource;
// each store call is one commit whose trailers name it. A store reads what
// it changes from git and the work tree under a lock, never from the
// index's copy, so no acknowledged update is lost; ids are stable; the
// vault's work tree and git index are never touched by store. A person's
// uncommitted note edits become their own commit before a merge, and both
// sides' edits combine with git's three-way file merge. Refs change the way
// the git CLI changes them, and a merge writes its intent first, so a
// crash leaves the old state or the new one, never half. Sync is the git
// CLI (the user's own credentials), never forced, each push naming the
// commit lore expects on the remote. A vault whose git directory cannot be
// written (read-only, full) still reads; its writes say why they cannot.
//
// Where the pieces are: ops.go (store's operations), resolve.go (reading
// under the lock), merge.go, intent.go (the merge's crash record),
// pending.go (a person's edits), refs.go, store.go (listing, the overlay,
// Health for lore doctor), outbox.go and sync.go (Remote: push, the outbox,
// publishing a merge), background.go (the sync a running server does on
// its own: what waits at once, a fetch when due), team.go (what a sync brings from the team's remote:
// the org ref, teammates' Drafts, host-side merges), init.go.
//
// Each decision is in docs/decisions, in the drafts-*.md files: nothing an
// agent stores is published, ids are stable, reading under the lock, the
// branches and operations, people who never type git, concurrency and
// crashes, merge, sync.
package drafts
