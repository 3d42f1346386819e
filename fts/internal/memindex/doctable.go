package memindex

// A docTable finds a doc of the in-memory copy by a 64-bit key that the doc
// itself carries (its uid, or its emb). It is an open-addressed table of
// doc numbers, 4 bytes a slot, probed linearly; the key of a slot is read
// from its doc, so the table holds no keys. Go maps from the key to the doc
// took 52 MB of the copy's heap on 100,000 generated notes (byUID and byEmb,
// 600,000 entries each, ~43 bytes an entry); these take 8.
type docTable struct {
	slots []int32 // a doc's number + 1; 0: empty
	n     int
	key   func(d int32) uint64
}

// newDocTable returns a table for about n docs whose keys key gives.
func newDocTable(n int, key func(d int32) uint64) docTable {
	size := 16
	for size*3 < n*4 { // at most three quarters full
		size *= 2
	}
	return docTable{slots: make([]int32, size), key: key}
}

func (t *docTable) home(k uint64) int {
	h := k * 0x9e3779b97f4a7c15
	return int((h ^ h>>32) & uint64(len(t.slots)-1))
}

// find returns the doc with key k.
func (t *docTable) find(k uint64) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if t.key(s-1) == k {
			return s - 1, true
		}
	}
}

// set makes d the doc of its key, in place of any doc with the same key.
func (t *docTable) set(d int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	k := t.key(d)
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = d + 1
			t.n++
			return
		}
		if t.key(s-1) == k {
			t.slots[i] = d + 1
			return
		}
	}
}

// del removes the doc with key k, if any, moving back the slots after it
// that probed past it (so no tombstones are needed).
func (t *docTable) del(k uint64) {
	if len(t.slots) == 0 {
		return
	}
	mask := len(t.slots) - 1
	i := t.home(k)
	for ; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return
		}
		if t.key(s-1) == k {
			break
		}
	}
	t.slots[i] = 0
	t.n--
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := t.home(t.key(t.slots[j] - 1))
		// The slot at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if i <= j && (h <= i || h > j) || i > j && h <= i && h > j {
			t.slots[i], t.slots[j] = t.slots[j], 0
			i = j
		}
	}
}

func (t *docTable) grow() {
	old := t.slots
	t.slots = make([]int32, max(16, 2*len(old)))
	t.n = 0
	for _, s := range old {
		if s != 0 {
			t.set(s - 1)
		}
	}
}
