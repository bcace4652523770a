package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeqRing(t *testing.T) {
	r := newSeqRing[string](3)
	assert.Equal(t, uint64(1), r.first())
	_, ok := r.get(1)
	assert.False(t, ok, "an empty ring holds nothing")
	var evicted []string
	for i := 1; i <= 8; i++ {
		seq, old, full := r.push(fmt.Sprint("v", i))
		assert.Equal(t, uint64(i), seq, "numbers count from 1 in push order")
		if full {
			evicted = append(evicted, old)
		}
	}
	assert.Equal(t, []string{"v1", "v2", "v3", "v4", "v5"}, evicted, "the oldest leaves first")
	assert.Len(t, r.buf, 3, "never more than retain entries")
	assert.Equal(t, uint64(6), r.first())
	for seq := uint64(1); seq <= 9; seq++ {
		v, ok := r.get(seq)
		if seq < 6 || seq > 8 {
			assert.False(t, ok, "seq %d is not kept", seq)
			continue
		}
		require.True(t, ok, "seq %d is kept", seq)
		assert.Equal(t, fmt.Sprint("v", seq), *v)
	}
}

func TestPostingsStayBounded(t *testing.T) {
	var p postings
	for seq := uint64(1); seq <= 10000; seq++ {
		p.seqs = append(p.seqs, seq)
		if seq > 10 {
			require.False(t, p.dropOldest(seq-10))
		}
		require.Equal(t, seq-min(seq, 10)+1, p.live()[0], "the first live number follows the evictions")
	}
	assert.Len(t, p.live(), 10)
	assert.LessOrEqual(t, len(p.seqs), 2*10+64, "evicted numbers are cut off, not kept for the key's whole history")
}

// storeModel is what the event store must answer, computed the slow way: every event ever added,
// and the retained ones are the last retain of them.
type storeModel struct {
	retain int
	all    []Event
}

func (m *storeModel) kept() []Event { return m.all[max(0, len(m.all)-m.retain):] }

func (m *storeModel) list(q EventQuery) (page []Event, more bool) {
	kept := slices.Clone(m.kept())
	if q.Descending {
		slices.Reverse(kept)
	}
	for _, ev := range kept {
		switch {
		case q.Merchant != "" && ev.MerchantPublicKey != q.Merchant,
			q.Type != "" && ev.Type != q.Type,
			q.ObjectID != "" && ev.ObjectID != q.ObjectID,
			!q.Since.IsZero() && ev.Emitted.Before(q.Since),
			!q.Until.IsZero() && !ev.Emitted.Before(q.Until),
			q.Cursor != 0 && !q.Descending && ev.Seq <= q.Cursor,
			q.Cursor != 0 && q.Descending && ev.Seq >= q.Cursor:
			continue
		}
		if q.Limit > 0 && len(page) == q.Limit {
			return page, true
		}
		page = append(page, ev)
	}
	return page, false
}

// checkIndexes holds the store's indexes to the events it keeps: every kept event is found by id and
// under each of its keys, the lists are ascending, and no key or id outlives its events.
func checkIndexes(t *testing.T, st *eventStore, m *storeModel) {
	t.Helper()
	want := map[eventKey][]uint64{}
	ids := map[string]uint64{}
	for _, ev := range m.kept() {
		for _, k := range eventKeys(&ev) {
			want[k] = append(want[k], ev.Seq)
		}
		ids[ev.ID] = ev.Seq
	}
	got := map[eventKey][]uint64{}
	for k, p := range st.index {
		got[k] = slices.Clone(p.live())
	}
	require.Equal(t, want, got, "index after %d events", len(m.all))
	require.Equal(t, ids, st.byID, "ids after %d events", len(m.all))
}

func testEvent(i int, rng *rand.Rand) Event {
	return Event{
		ID:                fmt.Sprint("evt_", i),
		Type:              []string{"payout.success", "payout.failed", "payment.processing"}[rng.IntN(3)],
		ObjectID:          fmt.Sprint("po_", rng.IntN(8)),
		MerchantPublicKey: []string{"pk_a", "pk_b"}[rng.IntN(2)],
		Emitted:           time.Unix(1_700_000_000, 0).Add(time.Duration(i) * time.Second),
		Body:              []byte(fmt.Sprint(i)),
	}
}

// TestEventStoreAgainstModel adds events far past the retention and compares, after every one, the
// indexes and a spread of queries with the model's answers.
func TestEventStoreAgainstModel(t *testing.T) {
	const retain = 7
	rng := rand.New(rand.NewPCG(1, 2))
	st := newEventStore(retain, retain)
	m := &storeModel{retain: retain}
	for i := 1; i <= 300; i++ {
		ev := st.add(testEvent(i, rng))
		require.Equal(t, uint64(i), ev.Seq)
		m.all = append(m.all, ev)
		checkIndexes(t, st, m)
		assert.Len(t, st.events.buf, min(i, retain))

		for _, q := range []EventQuery{
			{},
			{Merchant: "pk_a"},
			{Merchant: "pk_b", Type: "payout.failed"},
			{Merchant: "pk_a", ObjectID: "po_3"},
			{Merchant: "pk_a", Type: "payout.success", ObjectID: "po_1"},
			{Merchant: "pk_b", Since: ev.Emitted.Add(-4 * time.Second)},
			{Merchant: "pk_b", Until: ev.Emitted.Add(-2 * time.Second), Descending: true},
			// An empty range, since after until (found by conform's generated parameters: it panicked).
			{Merchant: "pk_a", Since: ev.Emitted, Until: ev.Emitted.Add(-time.Hour)},
			{Merchant: "pk_a", Since: ev.Emitted, Until: ev.Emitted.Add(-time.Hour), Descending: true},
			{Since: ev.Emitted.Add(time.Hour), Until: ev.Emitted, Descending: true},
			{Merchant: "pk_a", Cursor: uint64(max(1, i-3))},
			{Merchant: "pk_a", Cursor: uint64(max(1, i-3)), Descending: true},
			{Merchant: "pk_a", Limit: 2},
			{Merchant: "pk_c"},
			{Merchant: "pk_a", Type: "no.such"},
		} {
			page, more := st.list(q)
			wantPage, wantMore := m.list(q)
			require.Equal(t, wantPage, page, "after %d events: %+v", i, q)
			require.Equal(t, wantMore, more, "after %d events: %+v", i, q)
		}
	}
	_, ok := st.event(m.all[len(m.all)-retain-1].ID)
	assert.False(t, ok, "an evicted event is gone")
	got, ok := st.event(m.all[len(m.all)-retain].ID)
	assert.True(t, ok, "the oldest kept event is found")
	assert.Equal(t, m.all[len(m.all)-retain], got)
}

// TestEventStoreCursorPages walks a listing page by page, both ways: every selected event exactly
// once, in order, and the last page says nothing more follows.
func TestEventStoreCursorPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	st := newEventStore(50, 1)
	m := &storeModel{retain: 50}
	for i := 1; i <= 80; i++ {
		m.all = append(m.all, st.add(testEvent(i, rng)))
	}
	for _, desc := range []bool{false, true} {
		q := EventQuery{Merchant: "pk_a", Type: "payout.success", Descending: desc}
		want, _ := m.list(q)
		require.NotEmpty(t, want)
		var got []Event
		for pages := 0; ; pages++ {
			require.Less(t, pages, 100, "the listing ends")
			q.Limit = 3
			page, more := st.list(q)
			got = append(got, page...)
			if !more {
				break
			}
			require.Len(t, page, 3, "a page followed by more is full")
			q.Cursor = page[len(page)-1].Seq
		}
		assert.Equal(t, want, got, "descending=%v", desc)
	}
	page, _ := st.list(EventQuery{Merchant: "pk_a", Cursor: 1, Limit: 1})
	oldest, _ := m.list(EventQuery{Merchant: "pk_a", Limit: 1})
	assert.Equal(t, oldest, page, "a cursor older than the retention continues from the oldest kept event")
}

func TestEventStoreEmittedNeverDecreases(t *testing.T) {
	st := newEventStore(10, 1)
	t0 := time.Unix(1_700_000_000, 0)
	a := st.add(Event{ID: "a", MerchantPublicKey: "pk", Emitted: t0})
	b := st.add(Event{ID: "b", MerchantPublicKey: "pk", Emitted: t0.Add(-time.Millisecond)})
	c := st.add(Event{ID: "c", MerchantPublicKey: "pk", Emitted: t0.Add(time.Second)})
	assert.Equal(t, t0, a.Emitted)
	assert.Equal(t, t0, b.Emitted, "an event stamped before its predecessor is raised to the predecessor's time")
	assert.Equal(t, t0.Add(time.Second), c.Emitted)
	page, _ := st.list(EventQuery{Merchant: "pk", Since: t0})
	assert.Len(t, page, 3, "so a time range finds it")
}

// TestEventStoreAttempts keeps the most recent attempts and lists each event's own, in order, with
// nothing left behind for events whose attempts all left.
func TestEventStoreAttempts(t *testing.T) {
	const retain = 5
	st := newEventStore(1, retain)
	rng := rand.New(rand.NewPCG(5, 6))
	var all []Attempt
	for i := 1; i <= 200; i++ {
		a := Attempt{EventID: fmt.Sprint("evt_", rng.IntN(4)), Number: i}
		st.addAttempt(a)
		all = append(all, a)
		kept := all[max(0, len(all)-retain):]
		require.Equal(t, kept, st.attemptsOf(""))
		byEvent := map[string][]Attempt{}
		for _, a := range kept {
			byEvent[a.EventID] = append(byEvent[a.EventID], a)
		}
		for id := range 4 {
			eventID := fmt.Sprint("evt_", id)
			want := byEvent[eventID]
			if want == nil {
				want = []Attempt{}
			}
			require.Equal(t, want, st.attemptsOf(eventID), "attempts of %s after %d", eventID, i)
		}
		require.Len(t, st.attemptsByEvent, len(byEvent), "one index key per event with kept attempts")
	}
}

// TestEventsInspection reads the store's events: a merchant's events only, oldest first, bodies the
// caller may change.
func TestEventsInspection(t *testing.T) {
	s := New()
	rng := rand.New(rand.NewPCG(7, 8))
	tx := s.Begin()
	for i := 1; i <= 40; i++ {
		s.AddEvent(tx, testEvent(i, rng))
	}
	tx.Commit()
	events := func(merchant string) []Event { page, _ := s.Events(EventQuery{Merchant: merchant}); return page }
	evs := events("pk_b")
	require.NotEmpty(t, evs)
	for i, ev := range evs {
		assert.Equal(t, "pk_b", ev.MerchantPublicKey)
		if i > 0 {
			assert.Greater(t, ev.Seq, evs[i-1].Seq)
		}
	}
	assert.Len(t, events(""), 40)
	evs[0].Body[0] = 'X'
	assert.NotEqual(t, byte('X'), events("pk_b")[0].Body[0], "the caller's copy is its own")
}
