package eval

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDecisionRecords_SumRowsAddUpTheirRows: a table in the decision
// records or docs/BENCHMARKS.md that ends a list of question sets with a
// row "all N sets" of questions gained and lost holds, in each column, the
// sum of the rows above it. Four records once printed twice the sum (an ad
// hoc comparison added each vault's pooled row to its sets); this holds
// every such row to its table. Cells are signed counts ("+3", "−2", "0"),
// or several in one cell ("+1 +0 −1 +0"); a column whose cells are
// anything else (a figure, a range) is not summed.
func TestDecisionRecords_SumRowsAddUpTheirRows(t *testing.T) {
	files, err := filepath.Glob("../docs/decisions/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../docs/BENCHMARKS.md")
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tab := range tables(string(data)) {
			for i, row := range tab.rows {
				if !sumRow.MatchString(strings.Trim(row[0], "* ")) {
					continue
				}
				for j := 1; j < len(row); j++ {
					want, ok := counts(row[j])
					if !ok {
						continue
					}
					got := make([]int, len(want))
					summed := true
					for _, above := range tab.rows[:i] {
						if j >= len(above) {
							summed = false
							break
						}
						c, ok := counts(above[j])
						if !ok || len(c) != len(want) {
							summed = false
							break
						}
						for k := range c {
							got[k] += c[k]
						}
					}
					if !summed {
						continue
					}
					checked++
					if !slices.Equal(got, want) {
						t.Errorf("%s:%d: %q column %d is %v; the rows above it sum to %v", filepath.Base(f), tab.line+i, row[0], j, want, got)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no sum row was checked: the records' tables changed shape, and this test reads none of them")
	}
}

// sumRow is the first cell of a row that sums a table's question sets.
var sumRow = regexp.MustCompile(`^all \d+ sets$`)

type table struct {
	line int // the line of its first body row, from 1
	rows [][]string
}

// tables returns the Markdown tables of text, each without its header row
// and separator.
func tables(text string) []table {
	var out []table
	var cur *table
	for n, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cur == nil {
			out = append(out, table{line: n + 3}) // header, separator, then rows
			cur = &out[len(out)-1]
			continue // the header
		}
		if strings.Trim(cells[0], "-: ") == "" {
			continue // the separator
		}
		cur.rows = append(cur.rows, cells)
	}
	return out
}

// counts reads a cell of signed counts ("+3", "−2", "0", "+1 +0 −1"), the
// bold of a sum row taken off.
func counts(cell string) ([]int, bool) {
	fields := strings.Fields(strings.ReplaceAll(cell, "*", ""))
	if len(fields) == 0 {
		return nil, false
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(strings.Replace(f, "−", "-", 1))
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
