package receivertests

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// delivery is one webhook delivery as the grader sends it: an event of a type, its body, and the
// headers it carries (signed, or deliberately not).
type delivery struct {
	eventType string
	id        string
	body      []byte
	header    http.Header
}

// answer is what the receiver did with a delivery.
type answer struct {
	status  int
	body    string
	err     error
	timeout bool // no answer within the time-out
	took    time.Duration
}

// acknowledged reports whether the receiver answered 2xx in time.
func (a answer) acknowledged() bool { return a.err == nil && a.status >= 200 && a.status < 300 }

// String says what the receiver did, for failure messages.
func (a answer) String() string {
	switch {
	case a.timeout:
		return "no answer within the time-out"
	case a.err != nil:
		return "no answer: " + a.err.Error()
	default:
		s := fmt.Sprintf("%d", a.status)
		if b := strings.TrimSpace(a.body); b != "" {
			if len(b) > 120 {
				b = b[:120] + "…"
			}
			s += " " + strings.Join(strings.Fields(b), " ")
		}
		return s
	}
}

// payloads holds each selected event type's example event from the document, as a JSON object.
type payloads map[string]map[string]any

// loadPayloads reads, for each event type, the example its `webhooks` entry documents for the request
// body (the media type's `examples`, then `example`, whose `type` is the event type). A webhook
// without one is a defect of the document the grader cannot work around.
func loadPayloads(spec *openapi.Spec, types []string) (payloads, error) {
	out := payloads{}
	for _, t := range types {
		op, ok := spec.Webhook(t)
		if !ok {
			return nil, fmt.Errorf("event type %s is not declared under webhooks", t)
		}
		if openapi.OperationModel(op).RequestBody == nil || openapi.OperationModel(op).RequestBody.Content == nil {
			return nil, fmt.Errorf("webhook %s documents no request body", t)
		}
		mt, ok := openapi.OperationModel(op).RequestBody.Content.Get("application/json")
		if !ok || mt == nil {
			return nil, fmt.Errorf("webhook %s documents no application/json body", t)
		}
		var found map[string]any
		candidates := []any{}
		for _, ex := range mt.Examples.FromOldest() {
			if ex != nil && ex.Value != nil {
				candidates = append(candidates, ex.Value)
			}
		}
		if mt.Example != nil {
			candidates = append(candidates, mt.Example)
		}
		for _, c := range candidates {
			obj, err := decodeNode(c)
			if err == nil && obj["type"] == t {
				found = obj
				break
			}
		}
		if found == nil {
			return nil, fmt.Errorf("webhook %s has no example event of its type under requestBody.content.application/json.examples; add one (the grader sends the document's examples)", t)
		}
		out[t] = found
	}
	return out, nil
}

// decodeNode turns a YAML example node into a JSON object, its numbers exact (decodeExact).
func decodeNode(n any) (map[string]any, error) {
	type decoder interface{ Decode(any) error }
	d, ok := n.(decoder)
	if !ok {
		return nil, errors.New("not a YAML node")
	}
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeExact(data)
}

// decodeExact decodes a JSON object with its numbers as written (json.Number): an amount of the
// document's example is sent as the document spells it, never through a float.
func decodeExact(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// event returns a fresh copy of the example event of type t, with a new id and created_at now: each
// delivery is a distinct event, as the receiver's dedupe must see it.
func (p payloads) event(t string, now time.Time) map[string]any {
	data, _ := json.Marshal(p[t])
	obj, _ := decodeExact(data)
	stamp(obj, now)
	return obj
}

// stamped are the members of an event that stamp sets: each delivery's own, whatever its body was
// made from, so generated bodies and their shrinking leave them alone.
var stamped = map[string]bool{"id": true, "created_at": true}

// stamp gives ev a new event id and created_at now.
func stamp(ev map[string]any, now time.Time) {
	ev["id"], ev["created_at"] = newEventID(), now.UTC().Format(time.RFC3339)
}

// newEventID makes an event id in the form the document's examples use.
func newEventID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}

// newDelivery encodes an event as a delivery signed at ts with secrets (none: unsigned, no
// webhook-signature header).
func newDelivery(event map[string]any, ts time.Time, secrets ...webhook.Secret) delivery {
	body, _ := json.Marshal(event)
	d := delivery{eventType: fmt.Sprint(event["type"]), id: fmt.Sprint(event["id"]), body: body, header: http.Header{}}
	d.header.Set("Content-Type", "application/json")
	d.header.Set("User-Agent", "malipo-webhooks-test")
	webhook.SetHeaders(d.header, d.id, ts, body, secrets...)
	if len(secrets) == 0 {
		d.header.Del(webhook.HeaderSignature)
	}
	return d
}

// newRawDelivery is a delivery of body as written, correctly signed at ts: for bodies the grader
// spells itself (rawbody.go), which a decode and re-encode would change.
func newRawDelivery(eventType, id string, body []byte, ts time.Time, secret webhook.Secret) delivery {
	d := delivery{eventType: eventType, id: id, body: body, header: http.Header{}}
	d.header.Set("Content-Type", "application/json")
	d.header.Set("User-Agent", "malipo-webhooks-test")
	webhook.SetHeaders(d.header, id, ts, body, secret)
	return d
}

// maxAnswerBody is how much of a receiver's answer is read and kept: it is shown, never parsed.
const maxAnswerBody = 4 << 10

// send posts the delivery to the receiver and waits for its answer at most timeout.
func (g *grader) send(ctx context.Context, d delivery) (answer, report.Evidence) {
	if g.inflight != nil {
		g.inflight <- struct{}{}
		defer func() { <-g.inflight }()
	}
	ctx, cancel := context.WithTimeout(ctx, g.cfg.Timeout)
	defer cancel()
	start := time.Now()
	ev := report.Evidence{Kind: report.EvidenceDelivery, Operation: d.eventType, Started: start,
		Request: report.HTTPMessage{Method: http.MethodPost, URL: g.cfg.URL, Header: d.header.Clone(),
			Body: evidenceBody(d.body), BodySize: len(d.body), BodyTruncated: len(d.body) > report.MaxEvidenceBody},
		Curl: report.CurlCommand(http.MethodPost, g.cfg.URL, d.header, d.body)}
	var a answer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.cfg.URL, bytes.NewReader(d.body))
	if err != nil {
		a.err = err
	} else {
		req.Header = d.header.Clone()
		resp, err := g.client.Do(req)
		if err != nil {
			a.err = err
		} else {
			// The status line came in time: that is the answer, whether or not the body follows.
			b, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
			_ = resp.Body.Close()
			a.status, a.body = resp.StatusCode, string(b)
			ev.Response = report.HTTPMessage{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: a.body, BodySize: len(b)}
		}
	}
	a.took = time.Since(start)
	if a.err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			a.timeout = true
			a.err = fmt.Errorf("no answer within the %s time-out", g.cfg.Timeout)
		}
		ev.Error = a.err.Error()
	}
	ev.Duration = a.took
	return a, ev
}

// evidenceBody is a body as reports keep it, cut to report.MaxEvidenceBody.
func evidenceBody(b []byte) string {
	if len(b) > report.MaxEvidenceBody {
		b = b[:report.MaxEvidenceBody]
	}
	return string(b)
}
