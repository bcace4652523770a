package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Attempt is one webhook delivery attempt, as Attempts reports it. Tests use it to check retries
// (same webhook-id, growing Number), the contract suite to explain a failed webhook check.
type Attempt struct {
	// EventID is the event's id; WebhookID is the webhook-id header actually sent (they differ only
	// when an Outgoing hook changed it).
	EventID   string
	WebhookID string
	EventType string
	ObjectID  string
	// URL is where the attempt was sent; EndpointID is the webhook endpoint, empty for a delivery to
	// the object's own webhook_url.
	URL        string
	EndpointID string
	// Number counts attempts of this delivery from 1.
	Number int
	// Resend is true for the attempts of a delivery that the events API's resend asked for.
	Resend bool
	// StatusCode is the receiver's HTTP status, 0 when there was none (see Error).
	StatusCode int
	// Error says why the attempt failed without a status: time-out, refused connection, …
	Error string
	// ResponseBody is the first MaxResponseBodyKept bytes of the receiver's answer, as it sent them.
	ResponseBody []byte
	// Delivered is true when the receiver acknowledged with a 2xx status.
	Delivered bool
	// Final is true when no further attempt follows: delivered, or the retry schedule is exhausted.
	Final bool
	// EventEmitted is when the status change happened; Started and Duration time the attempt.
	EventEmitted time.Time
	Started      time.Time
	Duration     time.Duration
}

// MaxResponseBodyKept is how much of a receiver's answer an Attempt keeps: enough to read an error
// message, little enough that ten thousand attempts stay small.
const MaxResponseBodyKept = 1024

// delivery is one event on its way to one destination.
type delivery struct {
	event      Event
	merchant   *merchant
	endpointID string // empty: the object's own webhook_url
	url        string
	// resend marks a delivery the events API's resend asked for; chosen marks one to an endpoint the
	// caller named, which gets it whatever the endpoint subscribes to.
	resend, chosen bool
	// outboxKey is the delivery's entry in the data directory's outbox (nil in memory); commit is that
	// entry's write, which the first attempt waits for.
	outboxKey []byte
	commit    commit
}

// queueKey is the destination and the object: deliveries with the same key are sent strictly one
// after the other, which keeps every object's events in order at every receiver. With independent
// deliveries (WithIndependentDeliveries) it is the destination and the event instead.
func (d *delivery) queueKey(independent bool) string {
	of := d.event.ObjectID
	if independent {
		of = d.event.ID
	}
	if d.endpointID != "" {
		return "we:" + d.endpointID + "\x00" + of
	}
	return "url:" + d.url + "\x00" + of
}

type queue struct {
	key   string
	items []*delivery
}

// dispatcher delivers events at least once: a FIFO queue per destination and object (event N+1 waits
// until event N is acknowledged or given up), a semaphore bounding the attempts in flight, retries
// on any non-2xx status, time-out or connection error after the configured back-off, the same
// webhook-id on every attempt with a fresh timestamp and signature, and a drain on shutdown.
type dispatcher struct {
	s        *Server
	client   *http.Client
	sem      chan struct{}
	blocked  atomic.Int32 // attempts waiting for a slot of sem: lets tests see the bound hold, not sleep on it
	ctx      context.Context
	cancel   context.CancelFunc
	schedule []time.Duration

	mu     sync.Mutex
	queues map[string]*queue
	closed bool
	wg     sync.WaitGroup
}

func newDispatcher(s *Server) *dispatcher {
	client := s.cfg.httpClient
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = s.cfg.concurrency
		client = &http.Client{
			Transport: tr,
			// A redirect is not an acknowledgement: report it and retry, as other webhook senders do.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	schedule := s.cfg.retrySchedule
	return &dispatcher{s: s, client: client, sem: make(chan struct{}, s.cfg.concurrency), ctx: ctx, cancel: cancel,
		schedule: schedule, queues: map[string]*queue{}}
}

// enqueue adds a delivery behind the earlier ones of its destination and object. It never waits for
// a delivery. With a data directory the delivery is written to the outbox first (unless it comes from
// there), so that one the shutdown leaves behind is made at the next start; that hands the write to
// the writer and waits only when the writer is a full queue behind.
func (d *dispatcher) enqueue(del *delivery) {
	if del.outboxKey == nil {
		d.s.saveOutbox(del)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		d.s.log.Warn("webhook not queued: the sandbox is shutting down", "event_id", del.event.ID, "type", del.event.Type, "kept_in_outbox", del.outboxKey != nil)
		return
	}
	key := del.queueKey(d.s.cfg.independent)
	q, ok := d.queues[key]
	if !ok {
		q = &queue{key: key}
		d.queues[key] = q
		d.wg.Add(1)
		go d.run(q)
	}
	q.items = append(q.items, del)
}

// run works through one queue until it is empty.
func (d *dispatcher) run(q *queue) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(q.items) == 0 {
			delete(d.queues, q.key)
			d.mu.Unlock()
			return
		}
		del := q.items[0]
		d.mu.Unlock()
		d.deliver(del)
		d.mu.Lock()
		q.items = q.items[1:]
		d.mu.Unlock()
	}
}

// deliver makes attempts until one is acknowledged, the schedule is exhausted, the endpoint is gone,
// or the dispatcher is stopped. A delivery that ends otherwise than by being stopped leaves the outbox.
func (d *dispatcher) deliver(del *delivery) {
	if err := del.commit.wait(); err != nil {
		// Delivered anyway: the receiver is owed it now; only a restart could forget it.
		d.s.log.Error("webhook not written to the outbox", "event_id", del.event.ID, "error", err)
	}
	if d.attempts(del) {
		d.s.finishOutbox(del)
	}
}

// attempts is deliver's loop; it reports whether the delivery is finished (false: abandoned at
// shutdown, still owed).
func (d *dispatcher) attempts(del *delivery) (finished bool) {
	for n := 1; ; n++ {
		if d.ctx.Err() != nil {
			d.s.log.Warn("webhook abandoned: shutdown deadline reached", "event_id", del.event.ID, "type", del.event.Type, "url", redactURL(del.url),
				"kept_in_outbox", del.outboxKey != nil)
			return false
		}
		target, secrets, ok := d.s.target(del)
		if !ok {
			d.s.log.Info("webhook dropped: the endpoint was deleted, disabled or unsubscribed", "event_id", del.event.ID, "endpoint_id", del.endpointID)
			return true
		}
		d.blocked.Add(1)
		select {
		case d.sem <- struct{}{}:
			d.blocked.Add(-1)
		case <-d.ctx.Done():
			d.blocked.Add(-1)
			continue
		}
		out := d.outgoing(del, secrets, n)
		if out.Drop {
			<-d.sem
			d.s.log.Info("webhook dropped by a hook", "event_id", del.event.ID, "type", del.event.Type)
			return true
		}
		if out.Delay > 0 && !d.holdBack(out) {
			continue // stopped meanwhile: the loop's first test says so
		}
		att := d.attempt(del, target, out)
		<-d.sem
		if out.AckLost && att.Delivered {
			att.StatusCode, att.ResponseBody, att.Delivered = 0, nil, false
			att.Error = "the acknowledgement was lost on its way back (a hook simulated it); the delivery is retried"
		}
		att.Final = att.Delivered || n > len(d.schedule)
		d.record(att, del.merchant.publicKey)
		if att.Final {
			return true
		}
		t := time.NewTimer(d.schedule[n-1])
		select {
		case <-t.C:
		case <-d.ctx.Done():
			t.Stop()
		}
	}
}

// holdBack waits out an attempt's Delay with its delivery slot given back, then takes a slot again;
// the attempt's timestamp moves by the wait. It reports false, holding no slot, when the dispatcher
// stopped meanwhile.
func (d *dispatcher) holdBack(out *Outgoing) bool {
	<-d.sem
	t := time.NewTimer(out.Delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.ctx.Done():
		return false
	}
	out.Timestamp = out.Timestamp.Add(out.Delay)
	d.blocked.Add(1)
	defer d.blocked.Add(-1)
	select {
	case d.sem <- struct{}{}:
		return true
	case <-d.ctx.Done():
		return false
	}
}

// outgoing builds attempt n of a delivery as it will be signed, then lets the Outgoing hooks change it.
func (d *dispatcher) outgoing(del *delivery, secrets []webhook.Secret, n int) *Outgoing {
	out := &Outgoing{Number: n, EventType: api.EventType(del.event.Type), WebhookID: del.event.ID,
		Timestamp: time.Now(), Body: del.event.Body, Secrets: secrets, Resend: del.resend}
	for _, hook := range d.s.outgoing {
		hook(out)
	}
	return out
}

// attempt sends one signed POST and reports how it went.
func (d *dispatcher) attempt(del *delivery, target string, out *Outgoing) (att Attempt) {
	att = Attempt{EventID: del.event.ID, WebhookID: out.WebhookID, EventType: del.event.Type, ObjectID: del.event.ObjectID,
		URL: target, EndpointID: del.endpointID, Number: out.Number, Resend: del.resend, EventEmitted: del.event.Emitted, Started: time.Now()}
	defer func() { att.Duration = time.Since(att.Started) }()

	if f, failing := del.merchant.failingDelivery(target, att.Started); failing {
		// A sandbox control (controls.go): the attempt fails as if the receiver had answered, and
		// nothing is sent.
		att.StatusCode = int(f.StatusCode)
		att.Error = fmt.Sprintf("not sent: the sandbox fails deliveries to this URL until %s (delivery failure %s)", f.ExpiresAt.Format(time.RFC3339), f.ID)
		return att
	}
	body := out.Body
	ctx, cancel := context.WithTimeout(d.ctx, d.s.cfg.webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		att.Error = "cannot build the request: " + err.Error()
		return att
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "malipo-sandbox")
	for name, values := range out.Header {
		req.Header[http.CanonicalHeaderKey(name)] = values
	}
	webhook.SetHeaders(req.Header, out.WebhookID, out.Timestamp, body, out.Secrets...)
	resp, err := d.client.Do(req)
	if err != nil {
		att.Error = err.Error()
		return att
	}
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBodyKept))
	if len(kept) > 0 {
		att.ResponseBody = kept
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	att.StatusCode = resp.StatusCode
	att.Delivered = resp.StatusCode >= 200 && resp.StatusCode < 300
	return att
}

// record stores an attempt of a delivery for the merchant with publicKey and logs it.
func (d *dispatcher) record(att Attempt, publicKey string) {
	d.s.events.addAttempt(att)
	d.s.notices.publish(Notice{Kind: NoticeAttempt, Merchant: publicKey, ID: att.EventID})

	attrs := []slog.Attr{
		slog.String("event_id", att.EventID), slog.String("type", att.EventType), slog.String("url", redactURL(att.URL)),
		slog.Int("attempt", att.Number), slog.Duration("duration", att.Duration),
		slog.Bool("delivered", att.Delivered), slog.Bool("final", att.Final),
	}
	if att.EndpointID != "" {
		attrs = append(attrs, slog.String("endpoint_id", att.EndpointID))
	}
	if att.Error != "" {
		attrs = append(attrs, slog.String("error", att.Error))
	} else {
		attrs = append(attrs, slog.Int("status", att.StatusCode))
	}
	level := slog.LevelInfo
	if !att.Delivered {
		level = slog.LevelWarn
	}
	d.s.log.LogAttrs(context.Background(), level, "webhook attempt", attrs...)
}

// shutdown stops intake and waits for the queues to drain, or for ctx to end.
func (d *dispatcher) shutdown(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		d.cancel()
		return nil
	case <-ctx.Done():
		d.cancel()
		<-done
		return ctx.Err()
	}
}

// pending counts the deliveries queued or in flight.
func (d *dispatcher) pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, q := range d.queues {
		n += len(q.items)
	}
	return n
}

// Attempts returns every webhook delivery attempt so far (the most recent 10000), oldest first.
func (s *Server) Attempts() []Attempt { return s.events.attemptsOf("") }

// PendingDeliveries counts the webhook deliveries queued or in flight, so that tests can wait until
// the dispatcher is idle.
func (s *Server) PendingDeliveries() int { return s.disp.pending() }

// redactURL hides a password in a URL's user info before it is logged.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
