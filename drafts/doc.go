// Package drafts owns every write lore makes to git (with go-git v5): creating
// a vault's repository, and — with the Drafts issue — Draft branches, the
// Effective Memory overlay, merge, discard and sync. It never writes a person's
// files except through a merged Draft.
package drafts
