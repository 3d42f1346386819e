// Package sqlerr reads SQLite's errors the way lore's two SQLite files (the
// index, package fts, and the sync outbox, package outbox) need them read.
package sqlerr

import (
	"errors"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// CannotWrite reports whether err says a file cannot be written: a
// read-only file system, a full disk, no permission. Such a file is read as
// it is rather than failing what only reads it.
func CannotWrite(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrFull, sqlite3.ErrPerm, sqlite3.ErrIoErr:
			return true
		}
	}
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}
