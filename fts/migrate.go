package fts

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies the embedded migrations numbered above PRAGMA user_version,
// each in its own transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	// Up to date (every open but the first after an upgrade): one read, and
	// no write lock taken at all.
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err == nil && len(names) > 0 {
		last := strings.TrimPrefix(names[len(names)-1], "migrations/")
		if n, err := strconv.Atoi(strings.SplitN(last, "_", 2)[0]); err == nil && n <= current {
			return nil
		}
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", base)
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		// The version is read inside the (immediate) transaction, so two
		// processes opening a new index never apply a migration twice.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var current int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
			tx.Rollback()
			return fmt.Errorf("read schema version: %w", err)
		}
		if num <= current {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", num)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}
