// Package drafts owns every write lore makes to git: creating a vault's
// repository, Draft branches, the Effective Memory overlay, merge, discard
// and sync. Agents propose, people decide: nothing an agent can call
// (Apply, CreateSuperseding) merges, approves or moves the org ref; Merge
// and Discard are for people (the CLI, the web UI).
//
// # Nothing an agent stores is published
//
// The memory contract says store cannot approve, merge or advance the
// organization ref, and that deleting a published resource leaves a Delete
// Draft for review. So Apply never publishes, whatever the path: the
// memory tool's store and every vault-profile tool (flush_session,
// distill_session_skill, offload_context) leave Drafts. (lore.yaml's
// top-level auto_publish globs once merged a Draft on store; an agent then
// created and deleted published journal notes with no person involved.
// The key is ignored now, and lore doctor says so.)
//
// The one exception is the journal's remember (Remember), whose contract
// is an append-only diary: it writes one new note inside its namespace's
// own folder, journal/<userId>/<projectId>/, and with journal.auto_publish
// (the default) that note is published at once, but only when its Draft
// creates new files inside that folder and writes no guard rule
// (onlyNewNotes). Remember never updates, renames or deletes a note, and
// refuses a path outside its folder before anything is written.
//
// # Ids are stable
//
// A resource's id (its frontmatter id, or the id derived from its path) is
// kept as it is: an update that would change, remove or add the
// frontmatter id is refused naming the field (sameID), a create may not
// set one, and a rename of a note without one writes the id it had into
// its frontmatter.
//
// # Reading what a store changes
//
// A store operation reads the resource it changes from git and the work
// tree while holding the store lock (resolve.go): the project's Draft
// branch heads as the refs hold them now, else the file on disk. The index
// is only asked which file an id names, and its answer is checked against
// the file (a scan of the vault finds it when the index does not). The
// index's copy of the Drafts is shared by every lore process and can lag
// (a slower process can write an older overlay; a rebuild refills it), so
// checking expected_hash against it once let a stale hash pass and the
// commit, built on the real head, undo an acknowledged update. Reading
// the head the commit goes on, under the lock, makes check and commit one
// step. The same reading refuses a create at any path that is in use — in
// the project's view, on disk, or on the org ref — whatever the index is
// doing.
//
// # Drafts
//
// A Draft is the branch refs/heads/drafts/<project>/<draft_id>, forked from
// the org ref, carrying one project's pending change to one resource. Each
// store call is one commit whose message ends in trailers (Lore-Draft,
// Lore-Operation, Lore-Operation-Id, Lore-Resource, Lore-Path,
// Lore-Project); a Draft is read back by walking first parents while the
// trailer names it, and the commit under that is the fork point. The paths
// a Draft changes are the tree diff from the fork point to its head, so a
// person's own commit on a Draft branch is understood as part of it.
// Objects are written with go-git; the vault's working tree and the git index
// are never touched by store.
//
// Operations follow the spec: create (a new mem_ ULID written into the
// frontmatter, with the description; a body that sets id is refused),
// update (expected_hash against the full resource as the project sees it,
// all replacements against the same original, all or none, the spec's
// codes), rename, delete (a Draft that is only an unpublished create is
// discarded instead), discard (by draft id, or by the resource it
// carries). A resource that already has an open Draft in the project gets
// the new commit on that Draft. Paths must be vault-relative .md files
// outside dot-folders, shared or under the project's own projects/<name>/;
// bodies at most MaxBody (1 MiB), valid UTF-8, no NUL. A description on
// update or rename sets the frontmatter description, editing only that key's
// lines.
//
// Update applies to the version the project sees (the working tree with its
// Drafts), and the Draft carries the result.
//
// # People who never type git
//
// A person edits notes in any editor; lore reads the work tree, so a saved
// edit is published memory at once. lore records a person's uncommitted
// edits to notes (and lore.yaml, the guidelines file) as the person's own
// commit on the org ref — authored as git's configuration names them —
// at two moments only: before it merges Drafts, and on `lore commit`
// (pending.go). `commit_edits: false` in lore.yaml leaves committing to
// people who do it themselves; a merge that touches an uncommitted note then
// refuses and names it, so nothing of theirs is published behind their back.
// A Draft of a note with uncommitted edits forks from a pending base (the
// org ref plus the person's version, authored as them), so the Draft holds
// only the agent's change and its diff shows just that. When the org ref
// and a Draft both changed a note since it forked (the person's recorded
// edit, or their own git commit), merge combines them with git merge-file
// and stops only where both touched the same lines. While a Draft is open,
// a person's newer edit of its note is never hidden: the project sees the
// edit combined with the Draft's change, or the person's edit alone where
// they clash (effective), and store checks expected_hash against that view.
//
// # Concurrency and crashes
//
// Every store, merge and discard holds an exclusive lock file
// (<gitdir>/lore/drafts.lock, flock: released by the kernel if the process
// dies), so lore processes serialize their read-check-write. Refs are changed
// the way the git CLI changes them, so a person's git and lore interoperate:
// create "<ref>.lock" exclusively, compare the ref with the expected value,
// write, fsync, rename over the ref (refs.go). go-git's own ref writer
// rewrites the file in place under flock, which git does not honour, and can
// leave half a ref after a crash. A crash leaves either the old or the new
// ref; objects written before it are unreferenced and harmless.
//
// # Merge
//
// Merge (for people) takes several Drafts, all or nothing: for each path a
// Draft changes, the org ref must still hold the fork point's version,
// already hold the Draft's, or combine with it cleanly under git merge-file
// (both changed different lines); otherwise the merge stops and names the
// paths (merge_conflict). The first Draft whose fork
// point is the org head fast-forwards; the others become merge commits. When
// the vault's work tree is on the org branch, the person's pending edits are
// recorded first (with commit_edits: false, affected files must match the
// org ref byte for byte, else the merge refuses and names them) and the
// work tree and index are updated with `git read-tree -m -u OLD NEW`, the
// git CLI's own two-tree fast-forward, before the org ref moves. A Draft
// already in the org ref's history (a person's `git merge`) counts as merged:
// it leaves the overlay and `lore drafts list`.
//
// # Sync
//
// Sync shells out to the git CLI for transport, so the user's SSH agent,
// credential helpers and url.insteadOf rules work exactly as for their own
// pushes (go-git implements only part of them); it never prompts. Draft
// branches are pushed without force; discarded and merged ones are deleted
// on the remote; the org ref is fetched into refs/remotes/<remote>/<org> and
// pushed only as a fast-forward, so a sync can never overwrite published
// history. A remote whose org ref was rewritten is reported, not fought.
// The outbox (a SQLite file beside the index) keeps each Draft's status
// (queued, syncing, retrying, synced, failed), attempts and last error
// across restarts: transport failures retry with backoff (5 s doubling to
// 10 min, failed after 10), a refused push is failed at once with the
// remote's reason. The Draft branches are the truth; the outbox is
// reconciled with them at every sync.
package drafts
