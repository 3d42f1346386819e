package stale

import (
	"bytes"
	"context"
	"strings"
	"sync"
)

// A head that moved need not mean a note's check is to be run again: when
// the new HEAD descends from the one the note was checked at and the
// commits between touch none of the paths the note cites, and their diff
// names none of its identifiers, its findings stand. That keeps the first
// activate after a commit from checking every note it delivers anew (on a
// 10,000-note vault, lore stale after one code commit took as long as a
// cold one before).

// maxDeltaText bounds the diff read to decide: past it, notes are checked
// again.
const maxDeltaText = 8 << 20

// delta is what changed between two commits of one repository.
type delta struct {
	ok    bool // the new one descends from the old and the diff was read
	paths map[string]bool
	text  string
}

type deltas struct {
	mu sync.Mutex
	m  map[string]*delta
}

// unaffected reports whether e, checked at other heads, holds at these.
func (c *Checker) unaffected(ctx context.Context, e *entry, notePath, codeHead, vaultHead string) bool {
	if e.Commits {
		return false
	}
	if e.VaultHead != vaultHead {
		d := c.delta(ctx, c.vaultRoot, e.VaultHead, vaultHead, false)
		if !d.ok || d.touches(notePath) {
			return false
		}
	}
	if e.CodeHead != codeHead {
		d := c.delta(ctx, c.code, e.CodeHead, codeHead, len(e.Words) > 0)
		if !d.ok {
			return false
		}
		for _, p := range e.Paths {
			if d.touches(p) {
				return false
			}
		}
		for _, w := range e.Words {
			if strings.Contains(d.text, w) {
				return false
			}
		}
	}
	return true
}

// touches reports whether the delta changed p or anything under it.
func (d *delta) touches(p string) bool {
	if d.paths[p] {
		return true
	}
	for q := range d.paths {
		if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// delta learns (once per pair) what changed in dir's repository from old
// to now; withText reads the diff's text too.
func (c *Checker) delta(ctx context.Context, dir, old, now string, withText bool) *delta {
	key := dir + "\x00" + old + "\x00" + now
	c.ds.mu.Lock()
	defer c.ds.mu.Unlock()
	if d, ok := c.ds.m[key]; ok && (d.text != "" || !withText || !d.ok) {
		return d
	}
	d := &delta{}
	if c.ds.m == nil {
		c.ds.m = map[string]*delta{}
	}
	c.ds.m[key] = d
	if old == "" || now == "" {
		return d
	}
	if _, err := c.git(ctx, dir, nil, "merge-base", "--is-ancestor", old, now); err != nil {
		return d // a rewritten history, or not known: check again
	}
	names, err := c.git(ctx, dir, nil, "diff", "--name-only", "--no-renames", old, now)
	if err != nil {
		return d
	}
	d.paths = map[string]bool{}
	for _, p := range strings.Split(strings.TrimSpace(string(names)), "\n") {
		if p != "" {
			d.paths[p] = true
		}
	}
	if withText {
		cmd := c.command(ctx, dir, "diff", "--no-color", "--no-ext-diff", "-U0", old, now)
		var out limited
		out.max = maxDeltaText
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil || out.over {
			return d
		}
		d.text = out.b.String()
	}
	d.ok = true
	return d
}

// limited keeps up to max bytes and notes that there were more.
type limited struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.b.Len()+len(p) > l.max {
		l.over = true
		return 0, errTooLong
	}
	return l.b.Write(p)
}
