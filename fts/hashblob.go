package fts

import (
	"encoding/hex"
	"strings"
)

// Units keep their two SHA-256 hashes (content_hash, embed_hash), and
// embeddings theirs, as 32-byte blobs rather than as the 71 characters of
// "sha256:<hex>" that the rest of lore speaks: at 100,000 generated notes the
// hex hashes were 85 MB of index.db's 155 MB of unit rows. Writes turn a hash
// into its blob (hashBlob); reads turn it back in SQL (hashSQL), so every
// value that leaves the index is the usual string. Index format lore-18.

// hashBlob is the blob stored for a hash string ("sha256:<hex>"). A string
// of another shape is stored as it is, so it never matches a real hash.
func hashBlob(h string) []byte {
	if hx, ok := strings.CutPrefix(h, "sha256:"); ok && len(hx) == 64 {
		if b, err := hex.DecodeString(hx); err == nil {
			return b
		}
	}
	return []byte(h)
}

// hashSQL is the SQL expression that reads column col (a hashBlob) as its
// hash string.
func hashSQL(col string) string { return "('sha256:' || lower(hex(" + col + ")))" }
