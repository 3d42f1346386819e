package drafts

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/lore-memory/lore/vault"
)

// writeBlob stores data as a blob and returns its hash.
func writeBlob(st storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// readBlob returns the bytes at path in the tree root (zero: empty tree), and
// whether a file is there.
func readBlob(st storer.EncodedObjectStorer, root plumbing.Hash, path string) ([]byte, bool, error) {
	h, ok, err := blobAt(st, root, path)
	if err != nil || !ok {
		return nil, ok, err
	}
	if size, err := blobSize(st, h); err != nil {
		return nil, false, err
	} else if size > vault.MaxFileBytes {
		return nil, true, blobTooLarge(path, size)
	}
	b, err := object.GetBlob(st, h)
	if err != nil {
		return nil, false, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	return data, true, err
}

// blobSize is a blob's size, read from its header (a packed object is not
// inflated).
func blobSize(st storer.EncodedObjectStorer, h plumbing.Hash) (int64, error) {
	// go-git reads a loose object whole to make it an EncodedObject; its
	// storage's EncodedObjectSize reads the header alone.
	if sz, ok := st.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}); ok {
		return sz.EncodedObjectSize(h)
	}
	o, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// blobTooLarge refuses to read a blob over vault.MaxFileBytes: a 512 MiB
// note of one letter packs to 2 MiB, and read whole it cost every
// teammate's sync gigabytes.
func blobTooLarge(path string, size int64) error {
	return vault.Errorf(vault.CodeInvalid, "%s is %s, over the %s a note may hold; lore does not read it", path, humanBytes(size), humanBytes(vault.MaxFileBytes))
}

// blobAt returns the blob hash at path in tree root, if a regular file is there.
func blobAt(st storer.EncodedObjectStorer, root plumbing.Hash, path string) (plumbing.Hash, bool, error) {
	if root.IsZero() {
		return plumbing.ZeroHash, false, nil
	}
	t, err := object.GetTree(st, root)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	e, err := t.FindEntry(path)
	if err == object.ErrEntryNotFound || err == object.ErrDirectoryNotFound {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	if !e.Mode.IsFile() {
		return plumbing.ZeroHash, false, nil
	}
	return e.Hash, true, nil
}

// setPath returns the hash of a tree that is root with the file at path set
// to blob — or removed, when blob is zero — writing the trees it changes.
// Folders left empty disappear, as in git.
func setPath(st storer.EncodedObjectStorer, root plumbing.Hash, path string, blob plumbing.Hash) (plumbing.Hash, error) {
	return setParts(st, root, strings.Split(path, "/"), blob)
}

func setParts(st storer.EncodedObjectStorer, root plumbing.Hash, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !root.IsZero() {
		t, err := object.GetTree(st, root)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	name := parts[0]
	at := -1
	for i, e := range entries {
		if e.Name == name {
			at = i
			break
		}
	}
	var next object.TreeEntry
	keep := false
	if len(parts) == 1 {
		if at >= 0 && entries[at].Mode == filemode.Dir {
			return plumbing.ZeroHash, fmt.Errorf("%s is a folder", name)
		}
		if !blob.IsZero() {
			mode := filemode.Regular
			if at >= 0 && entries[at].Mode == filemode.Executable {
				mode = filemode.Executable
			}
			next, keep = object.TreeEntry{Name: name, Mode: mode, Hash: blob}, true
		}
	} else {
		sub := plumbing.ZeroHash
		if at >= 0 {
			if entries[at].Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a folder", name)
			}
			sub = entries[at].Hash
		}
		h, err := setParts(st, sub, parts[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h != emptyTree {
			next, keep = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}, true
		}
	}
	switch {
	case at >= 0 && keep:
		entries[at] = next
	case at >= 0:
		entries = append(entries[:at], entries[at+1:]...)
	case keep:
		entries = append(entries, next)
	}
	return writeTree(st, entries)
}

// writeTree stores a tree of entries, in git's order: by name, a folder's
// name compared as if it ended in "/".
func writeTree(st storer.EncodedObjectStorer, entries []object.TreeEntry) (plumbing.Hash, error) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// emptyTree is git's hash of the tree with no entries.
var emptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// changedPaths lists the file paths whose blobs differ between trees a and b
// (zero: empty), under prefix.
func changedPaths(st storer.EncodedObjectStorer, a, b plumbing.Hash, prefix string) ([]string, error) {
	ta, tb := &object.Tree{}, &object.Tree{}
	var err error
	if !a.IsZero() {
		if ta, err = object.GetTree(st, a); err != nil {
			return nil, err
		}
	}
	if !b.IsZero() {
		if tb, err = object.GetTree(st, b); err != nil {
			return nil, err
		}
	}
	chs, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, ch := range chs {
		for _, n := range []string{ch.From.Name, ch.To.Name} {
			if n != "" && !seen[n] && strings.HasPrefix(n, prefix) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
