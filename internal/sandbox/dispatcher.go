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

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Attempt is one webhook delivery attempt, as Attempts reports it (package store keeps them).
type Attempt = store.Attempt

// MaxResponseBodyKept is how much of a receiver's answer an Attempt keeps: enough to read an error
// message, little enough that ten thousand attempts stay small.
const MaxResponseBodyKept = 1024

// delivery is one event on its way to one destination: what the store's outbox keeps of it (the
// event, the destination, how many attempts were made and when the next is due, its entry's key)
// and the merchant it is owed by.
type delivery struct {
	store.Delivery
	merchant *merchant
	// commit is the write of the outbox entry, which the first attempt waits for: no receiver sees an
	// event a restart could forget.
	commit store.Commit
}

// queueKey is the destination and the object: deliveries with the same key are sent strictly one
// after the other, which keeps every object's events in order at every receiver. With independent
// deliveries (WithIndependentDeliveries) it is the destination and the event instead.
func (d *delivery) queueKey(independent bool) string {
	of := d.Event.ObjectID
	if independent {
		of = d.Event.ID
	}
	if d.EndpointID != "" {
		return "we:" + d.EndpointID + "\x00" + of
	}
	return "url:" + d.URL + "\x00" + of
}

type queue struct {
	key   string
	items []*delivery
}

// dispatcher delivers events at least once: a FIFO queue per destination and object (event N+1 waits
// until event N is acknowledged or given up), a semaphore bounding the attempts in flight and one per
// receiving host bounding that host's share of them, retries on any non-2xx status, time-out or
// connection error after the configured back-off, the same webhook-id on every attempt with a fresh
// timestamp and signature, and a drain on shutdown.
type dispatcher struct {
	s       *Server
	client  *http.Client
	sem     chan struct{}
	blocked atomic.Int32 // attempts waiting for a slot of sem: lets tests see the bound hold, not sleep on it
	// perHost bounds the attempts in flight to one host (scheme, host and port), taken before a slot of
	// sem: a receiver that hangs holds at most perHost of the global slots, and the deliveries waiting
	// for it hold none, so the other receivers' deliveries are not delayed by it.
	perHost  int
	hosts    map[string]*hostSlots // guarded by mu
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
		perHost: perHostSlots(s.cfg.concurrency), hosts: map[string]*hostSlots{}, schedule: schedule, queues: map[string]*queue{}}
}

// perHostSlots is one host's share of concurrency attempts in flight: half, so that a receiver that
// hangs leaves the others at least half of the slots (and at least one, when concurrency is 1).
func perHostSlots(concurrency int) int { return max(concurrency/2, 1) }

// hostSlots is the semaphore of one receiving host, dropped when nobody uses it.
type hostSlots struct {
	sem   chan struct{}
	users int
}

// enqueue adds a delivery behind the earlier ones of its destination and object. It never waits for
// a delivery. The delivery is in the store's outbox already (emit and resend put it there in the
// change's transaction, Load brings it back), so one the shutdown leaves behind is made at the next
// start.
func (d *dispatcher) enqueue(del *delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		d.s.log.Warn("webhook not queued: the sandbox is shutting down", "event_id", del.Event.ID, "type", del.Event.Type, "kept_in_outbox", del.Key != nil)
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
	if err := del.commit.Wait(); err != nil {
		// Delivered anyway: the receiver is owed it now; only a restart could forget it.
		d.s.log.Error("webhook not written to the outbox", "event_id", del.Event.ID, "error", err)
	}
	d.attempts(del)
}

// attempts is deliver's loop. It goes on from the attempts the delivery had before (a restart), when
// the next one is due. A delivery that ends otherwise than by the shutdown leaves the outbox.
func (d *dispatcher) attempts(del *delivery) {
	if !d.wait(time.Until(del.NextAt)) {
		d.abandoned(del)
		return
	}
	for n := del.Attempts + 1; ; n++ {
		if d.ctx.Err() != nil {
			d.abandoned(del)
			return
		}
		target, secrets, ok := d.s.target(del)
		if !ok {
			d.s.log.Info("webhook dropped: the endpoint was deleted, disabled or unsubscribed", "event_id", del.Event.ID, "endpoint_id", del.EndpointID)
			d.s.store.Finish(&del.Delivery)
			return
		}
		host := hostOf(target)
		if !d.acquire(host) {
			continue // stopped meanwhile: the loop's first test says so
		}
		out := d.outgoing(del, secrets, n)
		if out.Drop {
			d.release(host)
			d.s.log.Info("webhook dropped by a hook", "event_id", del.Event.ID, "type", del.Event.Type)
			d.s.store.Finish(&del.Delivery)
			return
		}
		if out.Delay > 0 && !d.holdBack(host, out) {
			continue
		}
		att := d.attempt(del, target, out)
		d.release(host)
		if out.AckLost && att.Delivered {
			att.StatusCode, att.ResponseBody, att.Delivered = 0, nil, false
			att.Error = "the acknowledgement was lost on its way back (a hook simulated it); the delivery is retried"
		}
		att.Final = att.Delivered || n > len(d.schedule)
		var next time.Time
		if !att.Final {
			next = time.Now().Add(d.schedule[n-1])
		}
		d.record(del, att, next)
		if att.Final {
			return
		}
		d.wait(time.Until(next))
	}
}

// abandoned logs a delivery the shutdown stops: it stays in the outbox, with its attempts so far.
func (d *dispatcher) abandoned(del *delivery) {
	d.s.log.Warn("webhook abandoned: shutdown deadline reached", "event_id", del.Event.ID, "type", del.Event.Type, "url", redactURL(del.URL),
		"kept_in_outbox", del.Key != nil)
}

// wait sleeps for dur, or until the dispatcher stops; false when it stopped.
func (d *dispatcher) wait(dur time.Duration) bool {
	if dur <= 0 {
		return d.ctx.Err() == nil
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-d.ctx.Done():
		return false
	}
}

// hostOf is the part of a receiver's URL that names who answers it: scheme, host and port.
func hostOf(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return u.Scheme + "://" + u.Host
}

// acquire takes a slot of host, then one of the global semaphore; false, holding neither, when the
// dispatcher stopped meanwhile. A delivery waiting for its host holds no global slot.
func (d *dispatcher) acquire(host string) bool {
	d.mu.Lock()
	h := d.hosts[host]
	if h == nil {
		h = &hostSlots{sem: make(chan struct{}, d.perHost)}
		d.hosts[host] = h
	}
	h.users++
	d.mu.Unlock()
	select {
	case h.sem <- struct{}{}:
	case <-d.ctx.Done():
		d.leave(host, h)
		return false
	}
	d.blocked.Add(1)
	defer d.blocked.Add(-1)
	select {
	case d.sem <- struct{}{}:
		return true
	case <-d.ctx.Done():
		<-h.sem
		d.leave(host, h)
		return false
	}
}

// release gives back the slots acquire took.
func (d *dispatcher) release(host string) {
	<-d.sem
	d.mu.Lock()
	h := d.hosts[host]
	d.mu.Unlock()
	<-h.sem
	d.leave(host, h)
}

// leave drops a user of h, and h with its last one.
func (d *dispatcher) leave(host string, h *hostSlots) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h.users--; h.users == 0 {
		delete(d.hosts, host)
	}
}

// holdBack waits out an attempt's Delay with its delivery slots given back, then takes them again;
// the attempt's timestamp moves by the wait. It reports false, holding no slot, when the dispatcher
// stopped meanwhile.
func (d *dispatcher) holdBack(host string, out *Outgoing) bool {
	d.release(host)
	if !d.wait(out.Delay) {
		return false
	}
	out.Timestamp = out.Timestamp.Add(out.Delay)
	return d.acquire(host)
}

// outgoing builds attempt n of a delivery as it will be signed, then lets the Outgoing hooks change it.
func (d *dispatcher) outgoing(del *delivery, secrets []webhook.Secret, n int) *Outgoing {
	out := &Outgoing{Number: n, EventType: api.EventType(del.Event.Type), WebhookID: del.Event.ID,
		Timestamp: time.Now(), Body: bytes.Clone(del.Event.Body), Secrets: secrets, Resend: del.Resend}
	for _, hook := range d.s.outgoing {
		hook(out)
	}
	return out
}

// attempt sends one signed POST and reports how it went.
func (d *dispatcher) attempt(del *delivery, target string, out *Outgoing) (att Attempt) {
	att = Attempt{EventID: del.Event.ID, WebhookID: out.WebhookID, EventType: del.Event.Type, ObjectID: del.Event.ObjectID,
		URL: target, EndpointID: del.EndpointID, Number: out.Number, Resend: del.Resend, EventEmitted: del.Event.Emitted, Started: time.Now()}
	defer func() { att.Duration = time.Since(att.Started) }()

	if f, failing := del.merchant.st.FailingDelivery(target, att.Started); failing {
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

// record stores an attempt of a delivery (with when the next is due, if one follows) and logs it.
func (d *dispatcher) record(del *delivery, att Attempt, next time.Time) {
	d.s.store.Attempted(&del.Delivery, att, next)
	d.s.notices.publish(Notice{Kind: NoticeAttempt, Merchant: del.merchant.publicKey, ID: att.EventID})

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
func (s *Server) Attempts() []Attempt { return s.store.Attempts("") }

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
