package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// bodyShown is how much of a receiver's answer a row shows; the sandbox keeps the first KiB.
const bodyShown = 200

// view is what the templates render: one merchant's state, newest first.
type view struct {
	PublicKey      string
	Merchants      []string // every merchant's public key, for the selector (never a secret key)
	Payments       []objectRow
	Payouts        []objectRow
	Endpoints      []endpointRow
	Events         []eventRow
	FailureReasons []api.FailureReason
	Shown          int
	Rendered       string
}

// objectRow is a payment or a payout.
type objectRow struct {
	Kind, ID, Reference, Amount, Status, FailureReason, Updated string
	Processing                                                  bool // settle buttons
}

type endpointRow struct {
	ID, URL, Events string
	Enabled         bool
}

type eventRow struct {
	ID, Type, ObjectID, Time string
	Attempts                 []attemptRow
}

type attemptRow struct {
	Number      int
	Resend      bool
	Destination string
	Answer      string // the status code, or the error
	Delivered   bool
	Latency     string
	Body        string
	Request     requestView
}

// requestView is the request of one attempt, rebuilt: the sandbox keeps no copy of what it sent (a
// copy per attempt would cost the attempt ring a kilobyte or more each), but what it sends is
// determined by what it does keep. The body is the event's (the same bytes for every attempt);
// webhook-id is the id the attempt recorded as sent; webhook-timestamp is the second the attempt
// started, which is when the dispatcher takes the time it signs. The signature is not shown: the
// sandbox keeps none, and rebuilding one would take the endpoint's secret, which stays off the page.
// A --fault or --vary hook can change what is sent; the page says so.
type requestView struct {
	Method, URL string
	Headers     []header
	Body        string
	NotSent     bool // a sandbox control failed the attempt without sending anything
}

type header struct{ Name, Value string }

func (h *Handler) view(publicKey string) view {
	v := view{PublicKey: publicKey, FailureReasons: api.FailureReasonValues(), Shown: shown,
		Rendered: time.Now().UTC().Format(time.RFC3339)}
	for _, p := range h.srv.KeyPairs() {
		v.Merchants = append(v.Merchants, p.Public)
	}
	for _, p := range h.srv.RecentPayments(publicKey, shown) {
		v.Payments = append(v.Payments, objectRow{Kind: "payment", ID: p.PaymentReference, Reference: p.Reference,
			Amount: strconv.FormatFloat(p.Amount, 'f', 2, 64) + " " + p.Currency, Status: string(p.Status), FailureReason: string(p.FailureReason),
			Updated: stamp(p.UpdatedAt), Processing: p.Status == api.PaymentStatusProcessing})
	}
	for _, p := range h.srv.RecentPayouts(publicKey, shown) {
		v.Payouts = append(v.Payouts, objectRow{Kind: "payout", ID: p.PayoutID, Reference: p.Reference,
			Amount: strconv.FormatInt(p.Amount, 10) + ".00 " + p.Currency, Status: string(p.Status), FailureReason: string(p.FailureReason),
			Updated: stamp(p.UpdatedAt), Processing: p.Status == api.PayoutStatusProcessing})
	}
	for _, e := range h.srv.WebhookEndpoints(publicKey) {
		types := make([]string, len(e.Events))
		for i, t := range e.Events {
			types[i] = string(t)
		}
		v.Endpoints = append(v.Endpoints, endpointRow{ID: e.ID, URL: e.URL, Events: strings.Join(types, ", "), Enabled: e.Enabled})
	}
	for _, ev := range h.srv.RecentEvents(publicKey, shown) {
		row := eventRow{ID: ev.ID, Type: ev.Type, ObjectID: ev.ObjectID, Time: stamp(ev.Emitted)}
		body := pretty(ev.Body) // once per event: every attempt sends the same body
		for _, a := range h.srv.EventAttempts(ev.ID) {
			row.Attempts = append(row.Attempts, attempt(a, body))
		}
		v.Events = append(v.Events, row)
	}
	return v
}

func attempt(a sandbox.Attempt, body string) attemptRow {
	row := attemptRow{Number: a.Number, Resend: a.Resend, Destination: a.URL, Delivered: a.Delivered,
		Latency: latency(a.Duration), Body: cut(a.ResponseBody, bodyShown), Request: request(a, body)}
	if a.EndpointID != "" {
		row.Destination = a.EndpointID + " " + a.URL
	}
	switch {
	case a.StatusCode != 0 && a.Error != "":
		row.Answer = fmt.Sprintf("%d (%s)", a.StatusCode, a.Error)
	case a.StatusCode != 0:
		row.Answer = fmt.Sprint(a.StatusCode)
	default:
		row.Answer = a.Error
	}
	return row
}

// request rebuilds what attempt a sent (see requestView).
func request(a sandbox.Attempt, body string) requestView {
	return requestView{Method: "POST", URL: a.URL, Body: body,
		// A sandbox control's failure has a status and an error: it answered in the receiver's place.
		NotSent: a.StatusCode != 0 && a.Error != "",
		Headers: []header{
			{"content-type", "application/json"},
			{webhook.HeaderID, a.WebhookID},
			{webhook.HeaderTimestamp, fmt.Sprint(a.Started.Unix())},
			{webhook.HeaderSignature, "v1,… (one HMAC-SHA256 per signing secret; not kept, and the secrets stay off this page)"},
		}}
}

// pretty is a JSON body indented for reading, or as it is when it is not JSON.
func pretty(body []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") != nil {
		return cut(body, len(body))
	}
	return out.String()
}

// cut is the first n bytes of b as text, cut at a character boundary, with invalid UTF-8 replaced.
func cut(b []byte, n int) string {
	more := len(b) > n
	if more {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) && !utf8.RuneStart(b[len(b)-1]) {
			b = b[:len(b)-1]
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if more {
		s += "…"
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// statusClass is the CSS class of a status or an attempt's outcome.
func statusClass(status string) string {
	switch status {
	case "success":
		return "ok"
	case "failed":
		return "bad"
	default:
		return "wait"
	}
}

// objectsView is what the "objects" template renders: a table of payments or payouts.
type objectsView struct {
	Key     string
	Rows    []objectRow
	Reasons []api.FailureReason
	Empty   string
}

func objectsArgs(key string, rows []objectRow, reasons []api.FailureReason, empty string) objectsView {
	return objectsView{Key: key, Rows: rows, Reasons: reasons, Empty: empty}
}

// settleView is what the "settle" template renders: the settle buttons of one object.
type settleView struct {
	Key     string
	Row     objectRow
	Reasons []api.FailureReason
}

func settleArgs(key string, row objectRow, reasons []api.FailureReason) settleView {
	return settleView{Key: key, Row: row, Reasons: reasons}
}

// latency is an attempt's duration for people: milliseconds, "<1ms" for a loopback receiver.
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
