package variance

import (
	"strings"
	"time"
)

// Date-times: the variant writes the sandbox's instants on its own grid and reads a client's on the
// same grid, so that filters mean to the sandbox what they mean to the client.

// timeIn reads a date-time the client sent (a query's created_after) on the variant's grid: the
// earliest instant the variant writes as that text or later, so that "at or after" and "before" mean
// to the sandbox what they mean to the client.
func (st *state) timeIn(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	t = t.UTC()
	grid := st.grid()
	if c := t.Truncate(grid); !c.Equal(t) {
		t = c.Add(grid)
	}
	return t.Format(time.RFC3339Nano), true
}

// grid is the smallest step of the variant's date-times.
func (st *state) grid() time.Duration {
	g := time.Second
	for range st.v.Time.Digits {
		g /= 10
	}
	return g
}

// timeOut writes a date-time as the variant does: truncated to its digits, every digit written.
func (st *state) timeOut(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	t = t.UTC().Truncate(st.grid())
	layout := "2006-01-02T15:04:05"
	if st.v.Time.Digits > 0 {
		layout += "." + strings.Repeat("0", st.v.Time.Digits)
	}
	if st.v.Time.NumericOffset {
		return t.Format(layout) + "+00:00", true
	}
	return t.Format(layout) + "Z", true
}
