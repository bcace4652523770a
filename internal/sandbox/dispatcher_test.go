package sandbox

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// TestWebhookRetries covers the three ways an attempt fails: a non-2xx status, a time-out and a
// connection error. Every attempt carries the same webhook-id and a valid signature.
func TestWebhookRetries(t *testing.T) {
	tests := []struct {
		name    string
		respond func(r received, nth int) (int, time.Duration)
		want    int // attempts until acknowledged
	}{
		{"500 twice", func(_ received, nth int) (int, time.Duration) {
			if nth <= 2 {
				return http.StatusInternalServerError, 0
			}
			return http.StatusOK, 0
		}, 3},
		{"404 then 204", func(_ received, nth int) (int, time.Duration) {
			if nth == 1 {
				return http.StatusNotFound, 0
			}
			return http.StatusNoContent, 0
		}, 2},
		{"time-out once", func(_ received, nth int) (int, time.Duration) {
			if nth == 1 {
				return http.StatusOK, time.Second // beyond the 100ms attempt timeout
			}
			return http.StatusOK, 0
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, WithWebhookTimeout(100*time.Millisecond))
			rc := newReceiver(t)
			rc.respond = tt.respond
			id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/retry")))
			got := rc.waitFor(tt.want, forObject(id))
			e.idle()
			ids := map[string]bool{}
			for _, d := range got {
				ids[d.header.Get("webhook-id")] = true
				verify(t, d, DefaultSecretKey)
			}
			assert.Len(t, ids, 1, "the same webhook-id on every attempt")
			var attempts []Attempt
			for _, a := range e.srv.Attempts() {
				if a.ObjectID == id {
					attempts = append(attempts, a)
				}
			}
			require.Len(t, attempts, tt.want)
			for i, a := range attempts {
				assert.Equal(t, i+1, a.Number)
				assert.Equal(t, a.EventID, a.WebhookID)
				assert.Equal(t, i == tt.want-1, a.Delivered)
				assert.Equal(t, i == tt.want-1, a.Final)
			}
		})
	}
}

func TestWebhookGivesUpAfterSchedule(t *testing.T) {
	// A port with nothing listening: every attempt is a connection error.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + l.Addr().String() + "/hook"
	require.NoError(t, l.Close())

	e := newEnv(t, WithRetrySchedule([]time.Duration{time.Millisecond, 2 * time.Millisecond}))
	id := e.client.createPayout(with(mobilePayout(""), "webhook_url", dead))
	require.Eventually(t, func() bool {
		for _, a := range e.srv.Attempts() {
			if a.ObjectID == id && a.Final {
				return true
			}
		}
		return false
	}, 5*time.Second, 2*time.Millisecond)
	var attempts []Attempt
	for _, a := range e.srv.Attempts() {
		if a.ObjectID == id {
			attempts = append(attempts, a)
		}
	}
	require.Len(t, attempts, 3, "one attempt plus one per scheduled retry")
	for _, a := range attempts {
		assert.NotEmpty(t, a.Error)
		assert.False(t, a.Delivered)
	}
}

// TestWebhookOrderPerObject makes the receiver refuse payment.processing twice: payment.success,
// which happens meanwhile, must not arrive before processing was acknowledged.
func TestWebhookOrderPerObject(t *testing.T) {
	e := newEnv(t, WithRetrySchedule([]time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}))
	rc := newReceiver(t)
	rc.respond = func(r received, nth int) (int, time.Duration) {
		if r.event.Type == "payment.processing" && nth <= 2 {
			return http.StatusServiceUnavailable, 0
		}
		return http.StatusOK, 0
	}
	res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), paymentInit(approvingPhone(t), rc.url("/ordered")))
	ref := res.data(t)["paymentReference"].(string)
	require.Equal(t, http.StatusAccepted, e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil).status)
	got := rc.waitFor(4, forObject(ref))
	types := make([]string, len(got))
	for i, d := range got {
		types[i] = d.event.Type
	}
	assert.Equal(t, []string{"payment.processing", "payment.processing", "payment.processing", "payment.success"}, types)
}

// TestDeliveryConcurrencyIsBounded: at most WithDeliveryConcurrency attempts are in flight at once,
// and at most half of them to one host.
func TestDeliveryConcurrencyIsBounded(t *testing.T) {
	const limit, hosts, each = 3, 5, 2 // a host's share of 3 is 1
	e := newEnv(t, WithDeliveryConcurrency(limit))
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	respond := func(received, int) (int, time.Duration) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		inFlight.Add(-1)
		return http.StatusOK, 0
	}
	var rcs []*receiver
	for range hosts {
		rc := newReceiver(t)
		rc.respond = respond
		rcs = append(rcs, rc)
		for range each {
			e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/slow")))
		}
	}
	t.Cleanup(unblock) // after the receivers' own: a failed assertion must not leave their handlers blocked
	// Every host has one delivery holding its slot (in flight, or waiting for a global one) and one
	// waiting for the host: none can start later, so the peak seen now is the peak.
	require.Eventually(t, func() bool {
		return inFlight.Load() == limit && e.srv.disp.blocked.Load() == hosts-limit
	}, 5*time.Second, time.Millisecond, "want %d deliveries in flight and %d waiting for a slot", limit, hosts-limit)
	assert.Equal(t, int32(limit), peak.Load())
	unblock()
	for _, rc := range rcs {
		rc.waitFor(each, nil)
	}
	e.idle()
}

// TestHangingReceiverDelaysNoOtherReceiver: a receiver that never answers gets as many deliveries as
// there are slots, and another receiver's deliveries still arrive at once: the hanging host holds only
// its share of the dispatcher's slots (issue 24).
func TestHangingReceiverDelaysNoOtherReceiver(t *testing.T) {
	const limit = 4
	e := newEnv(t, WithDeliveryConcurrency(limit), WithWebhookTimeout(time.Minute))
	release := make(chan struct{})
	hanging := newReceiver(t)
	t.Cleanup(func() { close(release) }) // runs before the receiver's, which waits for its handlers
	hanging.respond = func(received, int) (int, time.Duration) {
		<-release
		return http.StatusOK, 0
	}
	answering := newReceiver(t)
	for range 2 * limit {
		e.client.createPayout(with(mobilePayout(""), "webhook_url", hanging.url("/hangs")))
	}
	require.Eventually(t, func() bool { return len(hanging.deliveries()) == limit/2 }, 5*time.Second, time.Millisecond,
		"the hanging receiver holds its share of the slots")
	start := time.Now()
	const answered = 6
	for range answered {
		e.client.createPayout(with(mobilePayout(""), "webhook_url", answering.url("/answers")))
	}
	answering.waitFor(answered, nil)
	assert.Less(t, time.Since(start), 5*time.Second, "the answering receiver's deliveries are not held behind the hanging one")
	assert.Len(t, hanging.deliveries(), limit/2, "the hanging receiver never got more than its share")
}

func TestShutdownDrains(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	var mu sync.Mutex
	slow := true
	rc.respond = func(received, int) (int, time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if slow {
			return http.StatusOK, 50 * time.Millisecond
		}
		return http.StatusOK, 0
	}
	const n = 5
	for range n {
		e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/drain")))
	}
	require.Eventually(t, func() bool { return len(e.srv.Events(DefaultPublicKey)) == n }, 5*time.Second, time.Millisecond)
	require.NoError(t, e.srv.Shutdown(context.Background()))
	assert.Len(t, rc.deliveries(), n, "every queued delivery arrived before Shutdown returned")
	assert.Zero(t, e.srv.PendingDeliveries())

	// After shutdown nothing new is simulated or queued: the sandbox stays idle.
	e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/drain")))
	assert.True(t, e.srv.Idle(), "a payout created after Shutdown scheduled work")
	assert.Len(t, rc.deliveries(), n)
}

func TestShutdownDeadline(t *testing.T) {
	e := newEnv(t, WithRetrySchedule([]time.Duration{time.Hour}))
	rc := newReceiver(t)
	rc.respond = func(received, int) (int, time.Duration) { return http.StatusInternalServerError, 0 }
	e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/never")))
	rc.waitFor(1, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.srv.Shutdown(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), time.Second, "a delivery waiting for its retry is abandoned at the deadline")
}

// TestOutgoingDelayWithIndependentDeliveries holds payment.processing back past the prompt: with
// independent deliveries payment.success overtakes it, and the delayed attempt still verifies (its
// timestamp moved with the wait). Without them the object's order holds (TestWebhookOrderPerObject).
func TestOutgoingDelayWithIndependentDeliveries(t *testing.T) {
	const hold = 150 * time.Millisecond
	e := newEnv(t, WithIndependentDeliveries(), WithHooks(Hooks{Outgoing: func(o *Outgoing) {
		if o.EventType == api.EventTypePaymentProcessing {
			o.Delay = hold
		}
	}}))
	rc := newReceiver(t)
	res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), paymentInit(approvingPhone(t), rc.url("/unordered")))
	ref := res.data(t)["paymentReference"].(string)
	require.Equal(t, http.StatusAccepted, e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil).status)
	got := rc.waitFor(2, forObject(ref))
	assert.Equal(t, []string{"payment.success", "payment.processing"}, []string{got[0].event.Type, got[1].event.Type})
	for _, d := range got {
		verify(t, d, webhook.MerchantSigningSecret(DefaultSecretKey))
	}
}

// TestOutgoingAckLostAndHeader loses the acknowledgement of each first attempt: the receiver gets the
// event twice with one webhook-id, the first attempt is recorded as failed without a status, and both
// carry the hook's extra header.
func TestOutgoingAckLostAndHeader(t *testing.T) {
	e := newEnv(t, WithHooks(Hooks{Outgoing: func(o *Outgoing) {
		o.AckLost = o.Number == 1
		o.Header = http.Header{"X-Request-Id": {"req-" + o.WebhookID}}
	}}))
	rc := newReceiver(t)
	id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/twice")))
	got := rc.waitFor(2, forObject(id))
	e.idle()
	require.Len(t, rc.deliveries(), 2, "one retry after the lost acknowledgement, no more")
	assert.Equal(t, got[0].header.Get(webhook.HeaderID), got[1].header.Get(webhook.HeaderID))
	for _, d := range got {
		assert.Equal(t, "req-"+d.header.Get(webhook.HeaderID), d.header.Get("X-Request-Id"))
	}
	var attempts []Attempt
	for _, a := range e.srv.Attempts() {
		if a.ObjectID == id {
			attempts = append(attempts, a)
		}
	}
	require.Len(t, attempts, 2)
	assert.False(t, attempts[0].Delivered)
	assert.Zero(t, attempts[0].StatusCode)
	assert.NotEmpty(t, attempts[0].Error)
	assert.True(t, attempts[1].Delivered)
	assert.Equal(t, http.StatusOK, attempts[1].StatusCode)
}

// The default retry schedule keeps the document's promises to receivers and to conformance runs: the
// first retry within x-malipo-first-retry-within-seconds of the failed attempt, and back-off that never
// shortens (the Events tag).
func TestDefaultRetryScheduleKeepsTheDocumentsBound(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	bound, err := spec.WebhookFirstRetryBound()
	require.NoError(t, err)
	require.NotEmpty(t, DefaultRetrySchedule)
	assert.LessOrEqual(t, DefaultRetrySchedule[0], bound, "the first retry of the default schedule comes later than the document allows")
	for i := 1; i < len(DefaultRetrySchedule); i++ {
		assert.GreaterOrEqual(t, DefaultRetrySchedule[i], DefaultRetrySchedule[i-1], "the default schedule must back off, not speed up")
	}
}
