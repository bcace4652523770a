package sandbox

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// With a Spread, each object settles between its delay and the delay plus the spread, always at the
// same time for the same id (a restart re-arms it there), and objects differ; without one, at its delay.
func TestSettleAfterSpreadsByObject(t *testing.T) {
	delay, spread := 10*time.Second, 5*time.Second
	spreadOut := Timings{Spread: spread}
	seen := map[time.Duration]bool{}
	for i := range 200 {
		id := fmt.Sprintf("po_%016x", i)
		d := spreadOut.settleAfter(delay, id)
		assert.GreaterOrEqual(t, d, delay)
		assert.LessOrEqual(t, d, delay+spread)
		assert.Equal(t, d, spreadOut.settleAfter(delay, id), "the same id settles after the same time")
		seen[d] = true
	}
	assert.Greater(t, len(seen), 190, "objects settle at different times")
	assert.Equal(t, delay, Timings{}.settleAfter(delay, "po_1"))
	_, err := New(WithTimings(Timings{Spread: -time.Second}))
	assert.ErrorContains(t, err, "must not be negative")
}
