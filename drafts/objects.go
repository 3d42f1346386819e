package drafts

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// rereadingStorage is a repository handle's storage that reads the pack
// list again when an object is missing. go-git reads the list once per
// handle; `git gc` (which a person's `git commit` runs by itself once loose
// objects pile up) moves loose objects into a new pack and deletes them, so
// a handle opened before it found them in neither place, and a Draft read
// through it was called broken (its rows dropped from the index, its agent
// told the note it had just stored did not exist).
//
// The list is read again at the first miss of the handle, and after that
// only when the pack folder changed: a Draft whose objects are really gone
// does not make every later lookup re-read every pack's index.
type rereadingStorage struct {
	*filesystem.Storage
	packDir string
	tried   bool
	seen    time.Time // the pack folder's mtime at the last re-read
}

// reread reports whether the pack list was read again, so a lookup that
// missed is worth one more try.
func (s *rereadingStorage) reread() bool {
	var mod time.Time
	if fi, err := os.Stat(s.packDir); err == nil {
		mod = fi.ModTime()
	}
	if s.tried && mod.Equal(s.seen) {
		return false
	}
	s.tried, s.seen = true, mod
	s.Reindex()
	return true
}

func missing(err error) bool { return errors.Is(err, plumbing.ErrObjectNotFound) }

// EncodedObject is filesystem.Storage's, tried again after a re-read.
func (s *rereadingStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if missing(err) && s.reread() {
		o, err = s.Storage.EncodedObject(t, h)
	}
	return o, err
}

// HasEncodedObject is filesystem.Storage's, tried again after a re-read.
func (s *rereadingStorage) HasEncodedObject(h plumbing.Hash) error {
	err := s.Storage.HasEncodedObject(h)
	if missing(err) && s.reread() {
		err = s.Storage.HasEncodedObject(h)
	}
	return err
}

// EncodedObjectSize is filesystem.Storage's, tried again after a re-read.
func (s *rereadingStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	n, err := s.Storage.EncodedObjectSize(h)
	if missing(err) && s.reread() {
		n, err = s.Storage.EncodedObjectSize(h)
	}
	return n, err
}

// rereading wraps st when it is a file-system storage (any other is
// returned as it is); commonDir holds the objects.
func rereading(st any, commonDir string) (*rereadingStorage, bool) {
	fs, ok := st.(*filesystem.Storage)
	if !ok {
		return nil, false
	}
	return &rereadingStorage{Storage: fs, packDir: filepath.Join(commonDir, "objects", "pack")}, true
}
