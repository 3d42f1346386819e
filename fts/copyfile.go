package fts

import (
	"context"
	"fmt"
	"strings"
)

// saltValue is index.db's stat_salt: random when the file was made, so it
// tells this index from another (or from a rebuilt one).
func (ix *Index) saltValue(ctx context.Context) (string, error) {
	var s string
	err := ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'stat_salt'").Scan(&s)
	if err != nil || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("the index has no salt: %v", err)
	}
	return s, nil
}
