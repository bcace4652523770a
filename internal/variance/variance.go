// Package variance makes the sandbox differ from itself wherever openapi/malipo.yaml leaves a choice to
// the implementation: the format of ids, references, cursors and secrets, how long settlement takes,
// the order and repetition of webhook deliveries and the types it adds, the retry schedule, what a
// concurrent retry with the same Idempotency-Key gets, rate limits, extra headers, the JSON's key order
// and white space, words and list orders, how timestamps are written, which reference data and example
// objects exist, and whether each optional extension is there at all (Dimensions lists them all). It is the twin of package internal/faults: a fault breaks one
// rule, so that the contract suite's self-test proves the suite notices; a variant breaks none, so that
// the suite's variance test (TestSuiteAcceptsEveryAllowedVariant) proves the suite accepts every
// implementation the document allows, not only the one it was written against. `malipo sandbox --vary
// SEED` serves a variant, for the same self-test and for trying a client against an implementation
// that is not the sandbox.
//
// Draw makes every choice for a seed, so that a failure names the seed that reproduces it. Dimensions
// lists the choices with the document's own words that allow each; the package's tests hold those
// words to the embedded document, so that the list cannot claim what the document does not say.
//
// Like the faults, a variant works only through the sandbox's seams (sandbox.Hooks and options): HTTP
// middleware that translates ids, timestamps and cursors in both directions and re-encodes responses,
// a hook on outgoing webhooks that does the same for deliveries and delays or repeats some, and the
// sandbox's own options for timings, retries, delivery order and seed data. The handlers hold no
// variance code.
package variance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// Variant is every choice drawn for one seed. Its fields say what was drawn; Options applies it.
type Variant struct {
	Seed int64

	// IDs is the format of each kind of object id the service makes; ReferenceIDs that of the
	// countries' and banks' ids; Cursors that of the event log's cursors.
	IDs          ObjectIDFormats
	ReferenceIDs IDFormat
	Cursors      CursorFormat

	// Timings are the simulated network's delays: how long a push prompt and a payout take to settle.
	Timings sandbox.Timings
	// SlowSettlement draws Timings in tens of seconds, with a spread from object to object, as a
	// staging service's do, whose payments wait for a simulated customer and payouts for a partner's
	// test rails.
	SlowSettlement bool
	// Latency is a network's round trip, added to every answer and every delivery attempt.
	Latency Latency
	// RetrySchedule is the exponential back-off between webhook attempts.
	RetrySchedule []time.Duration
	// FinalEventFirst delivers a payment's final event before its payment.processing: the first attempt
	// of payment.processing is held back for the push prompt's delay and HoldPastPrompt more, and
	// deliveries are independent of each other (sandbox.WithIndependentDeliveries).
	FinalEventFirst bool
	HoldPastPrompt  time.Duration
	// NoRateLimitFields sends no RateLimit-* response fields (and limits nothing), as an implementation
	// that does not limit request rates may.
	NoRateLimitFields bool
	// LostAcks loses the acknowledgement of the first attempt of about half the events, which are then
	// delivered again with the same webhook-id.
	LostAcks bool
	// KeyInUse answers a request whose Idempotency-Key is in use by a request still running with
	// 409 (idempotency_key_in_use) at once, instead of waiting for the first and replaying its answer.
	KeyInUse bool

	Response ResponseHeaders
	Webhook  WebhookHeaders
	JSON     JSONStyle
	Time     TimeStyle

	// WebhookEndpoints and EventLog say whether each optional extension is there; without it its paths
	// answer 404 (not_found), as for any path the service does not have.
	WebhookEndpoints bool
	EventLog         bool

	// References is the format of the merchant references the service generates for a payment
	// initialized without one (at most 64 characters, as MerchantReference allows).
	References IDFormat
	// Reworded gives every envelope's message and every field error's reason other words.
	Reworded bool
	// ErrorsReversed lists an error's field errors in the reverse of the sandbox's order.
	ErrorsReversed bool
	// ListsReversed lists countries and banks in the reverse of the sandbox's order.
	ListsReversed bool
	// EventFields adds fields the document does not declare to every event and to its object.
	EventFields bool
	// ExampleObjects keeps the sandbox's seed data: the objects the document's examples name exist.
	// Without it only what a client creates exists, as in any other implementation.
	ExampleObjects bool
	// ReferenceSubset supports only some of the sandbox's countries and banks: each country is left out
	// with odds of 2 in 5 and each bank 1 in 3 (by a hash of the seed and its id), and every other seed
	// the country listed first has no bank, keeping at least one country with a bank. What is left out
	// is not listed and is unknown where a request names it.
	ReferenceSubset bool
	// EventPageCap, when not zero, is the most events a page of the event log holds, whatever limit
	// asks for: a page may hold fewer events than the limit while more follow.
	EventPageCap int
	// RateLimitEvery, when not zero, answers every so many requests with 429 (rate_limited) and
	// Retry-After: 1 before doing anything, as a service that limits its clients' rate does.
	RateLimitEvery int
	// SecretBytes, when not zero, is the size of the signing secrets the service generates for webhook
	// endpoints (the sandbox's are 32 bytes); a secret the caller supplies is used as given.
	SecretBytes int
	// NewEventTypes sends, when a payment or payout is created, an event of a type the document does
	// not declare (payment.created, payout.created) to its webhook_url. Only without the event log,
	// which would have to list it.
	NewEventTypes bool
}

// IDFormat is how a kind of id looks. Every format stays within the document's ObjectId: a letter or
// digit, then letters, digits and `_.:-`, at most 128 characters.
type IDFormat string

// The id formats.
const (
	// IDAsSandbox keeps the sandbox's own ids (`po_` and 16 hex digits, `ctry_zm`).
	IDAsSandbox IDFormat = "as-sandbox"
	// IDUUID is a version-4 UUID in lower-case hex.
	IDUUID IDFormat = "uuid"
	// IDTagged is an upper-case tag, a colon, a year and a dot before base32: `PO:2026.7K3M…`.
	IDTagged IDFormat = "tagged"
	// IDLong is 128 characters, the longest ObjectId allows.
	IDLong IDFormat = "long"
	// IDNumeric is digits only: 19 for objects, 5 for reference data.
	IDNumeric IDFormat = "numeric"
	// IDMixedCase is 22 base62 characters, upper and lower case (ids are case-sensitive text).
	IDMixedCase IDFormat = "mixed-case"
	// IDCoded is reference data named by its codes: `country:ZM`, `ZM.ZANACO`.
	IDCoded IDFormat = "coded"
	// IDOutsidePattern is NOT allowed: ids that start and end with `~`, outside ObjectId's pattern.
	// Draw never picks it; it is there so that a test can show that the suite fails such a variant.
	IDOutsidePattern IDFormat = "outside-pattern"
)

// ObjectIDFormats is the id format of each kind of object.
type ObjectIDFormats struct {
	Payment, Payout, Endpoint, Event, DeliveryFailure IDFormat
}

// CursorFormat is how the event log's cursors look, within the document's `^[A-Za-z0-9_-]+$`.
type CursorFormat string

// The cursor formats.
const (
	CursorAsSandbox CursorFormat = "as-sandbox"
	// CursorOpaque is 43 base64url characters.
	CursorOpaque CursorFormat = "opaque"
	// CursorLong is 128 characters, the longest the document allows.
	CursorLong CursorFormat = "long"
)

// ResponseHeaders are the headers a variant adds to or changes on responses.
type ResponseHeaders struct {
	// Extra adds X-Request-Id, Server and Cache-Control.
	Extra bool
	// Charset sends JSON as `application/json; charset=utf-8`.
	Charset bool
	// ConnectionClose sends `Connection: close`, so that every request needs a new connection.
	ConnectionClose bool
	// ReplayedFalse sends `Idempotent-Replayed: false` on the first answer to a POST.
	ReplayedFalse bool
	// AllowReordered lists a 405's allowed methods in the reverse order.
	AllowReordered bool
}

// WebhookHeaders are the headers a variant adds to or changes on webhook deliveries.
type WebhookHeaders struct {
	// Extra adds X-Request-Id and X-Malipo-Attempt and another User-Agent.
	Extra bool
	// Charset sends deliveries as `application/json; charset=utf-8`.
	Charset bool
}

// KeyOrder is the order of an object's members when a variant re-encodes JSON.
type KeyOrder string

// The key orders.
const (
	OrderAsSandbox KeyOrder = "as-sandbox"
	OrderSorted    KeyOrder = "sorted"
	OrderReversed  KeyOrder = "reversed"
	// OrderShuffled sorts by a hash of the seed and the name: fixed for a seed, so that the same
	// object is always encoded the same way (an idempotent replay is byte for byte the first answer).
	OrderShuffled KeyOrder = "shuffled"
)

// JSONStyle is how a variant writes JSON: the same values, other text. Numbers keep their text exactly.
type JSONStyle struct {
	Order KeyOrder
	// Indent is empty for one line, else the indent of each level.
	Indent string
	// SpaceAfterColon writes `"a": 1` instead of `"a":1` (and `, ` between members on one line).
	SpaceAfterColon bool
	// EscapeSlash writes `/` as `\/`, as PHP does.
	EscapeSlash bool
	// EscapeNonASCII writes every character outside ASCII, and <, > and &, as \u escapes.
	EscapeNonASCII bool
	// TrailingNewline ends the body with a line feed.
	TrailingNewline bool
}

// TimeStyle is how a variant writes date-times: the same instants (truncated to Digits), other text.
type TimeStyle struct {
	// Digits is how many digits of the fraction of a second are written, always all of them.
	Digits int
	// NumericOffset writes UTC as +00:00 instead of Z.
	NumericOffset bool
}

// Draw makes every choice the document leaves open for seed. The same seed always gives the same
// variant.
func Draw(seed int64) Variant {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6d616c69706f)) //nolint:gosec // reproducible draws, not secrets
	v := Variant{Seed: seed}
	objectFormats := []IDFormat{IDAsSandbox, IDUUID, IDTagged, IDLong, IDNumeric, IDMixedCase}
	pick := func() IDFormat { return objectFormats[r.IntN(len(objectFormats))] }
	v.IDs = ObjectIDFormats{Payment: pick(), Payout: pick(), Endpoint: pick(), Event: pick(), DeliveryFailure: pick()}
	refFormats := []IDFormat{IDAsSandbox, IDUUID, IDCoded, IDNumeric, IDLong}
	v.ReferenceIDs = refFormats[r.IntN(len(refFormats))]
	v.Cursors = []CursorFormat{CursorAsSandbox, CursorOpaque, CursorLong}[r.IntN(3)]

	v.Timings = sandbox.Timings{PromptDelay: logUniform(r, minDelay, maxDelay), PayoutDelay: logUniform(r, minDelay, maxDelay)}
	first := logUniform(r, minFirstRetry, maxFirstRetry)
	for i, n := 0, 2+r.IntN(5); i < n; i++ {
		v.RetrySchedule = append(v.RetrySchedule, first<<i)
	}
	v.FinalEventFirst = r.IntN(2) == 0
	if v.FinalEventFirst {
		v.HoldPastPrompt = 100*time.Millisecond + time.Duration(r.IntN(200))*time.Millisecond
	}
	v.LostAcks = r.IntN(2) == 0
	v.KeyInUse = r.IntN(2) == 0

	v.Response = ResponseHeaders{Extra: r.IntN(2) == 0, Charset: r.IntN(2) == 0, ConnectionClose: r.IntN(3) == 0, ReplayedFalse: r.IntN(2) == 0}
	v.Webhook = WebhookHeaders{Extra: r.IntN(2) == 0, Charset: r.IntN(2) == 0}
	v.JSON = JSONStyle{
		Order:           []KeyOrder{OrderAsSandbox, OrderSorted, OrderReversed, OrderShuffled}[r.IntN(4)],
		Indent:          []string{"", "", "  ", "\t", "    "}[r.IntN(5)],
		SpaceAfterColon: r.IntN(2) == 0,
		EscapeSlash:     r.IntN(2) == 0,
		EscapeNonASCII:  r.IntN(2) == 0,
		TrailingNewline: r.IntN(2) == 0,
	}
	v.Time = TimeStyle{Digits: []int{0, 3, 6, 9}[r.IntN(4)], NumericOffset: r.IntN(2) == 0}
	v.WebhookEndpoints = r.IntN(2) == 0
	v.EventLog = r.IntN(2) == 0
	// Drawn after the others, so that adding them left every earlier choice of a seed as it was.
	v.References = []IDFormat{IDAsSandbox, IDUUID, IDTagged, IDLong, IDNumeric, IDMixedCase}[r.IntN(6)]
	v.Reworded = r.IntN(2) == 0
	v.ErrorsReversed = r.IntN(2) == 0
	v.ListsReversed = r.IntN(2) == 0
	v.EventFields = r.IntN(2) == 0
	v.Response.AllowReordered = r.IntN(2) == 0
	v.ExampleObjects = r.IntN(2) == 0
	v.ReferenceSubset = r.IntN(2) == 0
	v.EventPageCap = []int{0, 0, 1, 3, 10}[r.IntN(5)]
	v.RateLimitEvery = []int{0, 0, 25, 40}[r.IntN(4)]
	v.SecretBytes = []int{0, 24, 48, 64}[r.IntN(4)]
	v.NewEventTypes = !v.EventLog && r.IntN(2) == 0
	v.NoRateLimitFields = r.IntN(2) == 0
	if v.NoRateLimitFields {
		v.RateLimitEvery = 0 // an implementation that limits rates sends the fields (RateLimitLimit's description)
	}
	v.SlowSettlement = r.IntN(6) == 0
	if v.SlowSettlement {
		v.Timings = sandbox.Timings{PromptDelay: logUniform(r, minSlowDelay, maxSlowDelay), PayoutDelay: logUniform(r, minSlowDelay, maxSlowDelay),
			Spread: logUniform(r, minSlowSpread, maxSlowSpread)}
	}
	if r.IntN(4) == 0 {
		low := logUniform(r, minLatency, maxLatency/2)
		v.Latency = Latency{Min: low, Max: logUniform(r, low, maxLatency)}
	}
	return v
}

// Slowest is the longest a payment or payout of the variant stays processing.
func (v Variant) Slowest() time.Duration {
	return max(v.Timings.PromptDelay, v.Timings.PayoutDelay) + v.Timings.Spread
}

// The ranges Draw draws from. Settlement and retries are kept short, since the document sets no time
// for either and a run of the suite should take seconds; the longest settlement is well within the
// suite's default wait (20 s), the longest first retry well within the back-off a receiver expects.
const (
	minDelay      = 20 * time.Millisecond
	maxDelay      = 2 * time.Second
	minFirstRetry = 20 * time.Millisecond
	maxFirstRetry = 400 * time.Millisecond
	// A slow variant (one seed in six) settles in tens of seconds: each delay from 10 s to 11 s, plus
	// a spread of 0.5 s to 1.5 s from object to object. Against it the suite needs a --wait of three times
	// its slowest settlement, as against any target. The range is kept near its floor because the
	// variance test lasts as long as its slowest variant's run, some five of its settlements, inside
	// make test's time budget; make bench-conform-pace measures settlements of up to a minute.
	minSlowDelay  = 10 * time.Second
	maxSlowDelay  = 11 * time.Second
	minSlowSpread = 500 * time.Millisecond
	maxSlowSpread = 1500 * time.Millisecond
	// A distant variant (one seed in four) adds a round trip between 50 ms and 300 ms to every answer
	// and delivery.
	minLatency = 50 * time.Millisecond
	maxLatency = 300 * time.Millisecond
)

// logUniform draws a duration between lo and hi whose logarithm is uniform, so that short and long
// ones are equally likely, rounded to the millisecond.
func logUniform(r *rand.Rand, lo, hi time.Duration) time.Duration {
	f := float64(lo) * math.Pow(float64(hi)/float64(lo), r.Float64())
	return time.Duration(f).Round(time.Millisecond)
}

// Lines says what the variant drew, one line per dimension of Dimensions, in its order.
func (v Variant) Lines() []string {
	onOff := func(b bool, on, off string) string {
		if b {
			return on
		}
		return off
	}
	var headers []string
	if v.Response.Extra {
		headers = append(headers, "extra X-Request-Id, Server, Cache-Control")
	}
	if v.Response.Charset {
		headers = append(headers, "Content-Type with charset=utf-8")
	}
	if v.Response.ConnectionClose {
		headers = append(headers, "Connection: close")
	}
	if v.Response.ReplayedFalse {
		headers = append(headers, "Idempotent-Replayed: false on first answers")
	}
	if v.Response.AllowReordered {
		headers = append(headers, "Allow in reverse order")
	}
	var hooks []string
	if v.Webhook.Extra {
		hooks = append(hooks, "extra X-Request-Id, X-Malipo-Attempt, another User-Agent")
	}
	if v.Webhook.Charset {
		hooks = append(hooks, "Content-Type with charset=utf-8")
	}
	order := "an object's events in order"
	if v.FinalEventFirst {
		order = fmt.Sprintf("a payment's final event before payment.processing (held %s past the prompt); deliveries independent", v.HoldPastPrompt)
	}
	indent := "one line"
	switch v.JSON.Indent {
	case "":
	case "\t":
		indent = "indented by tabs"
	default:
		indent = fmt.Sprintf("indented by %d spaces", len(v.JSON.Indent))
	}
	jsonStyle := []string{"keys " + string(v.JSON.Order), indent}
	if v.JSON.SpaceAfterColon {
		jsonStyle = append(jsonStyle, "space after colon")
	}
	if v.JSON.EscapeSlash {
		jsonStyle = append(jsonStyle, `/ as \/`)
	}
	if v.JSON.EscapeNonASCII {
		jsonStyle = append(jsonStyle, `non-ASCII and <>& as \u escapes`)
	}
	if v.JSON.TrailingNewline {
		jsonStyle = append(jsonStyle, "trailing newline")
	}
	timeStyle := fmt.Sprintf("%d fraction digits, UTC as %s", v.Time.Digits, onOff(v.Time.NumericOffset, "+00:00", "Z"))
	values := map[string]string{
		DimObjectIDs: fmt.Sprintf("payment %s, payout %s, webhook endpoint %s, event %s, delivery failure %s",
			v.IDs.Payment, v.IDs.Payout, v.IDs.Endpoint, v.IDs.Event, v.IDs.DeliveryFailure),
		DimReferenceIDs:      string(v.ReferenceIDs),
		DimCursors:           string(v.Cursors),
		DimSettlement:        fmt.Sprintf("push prompt %s, payout %s", v.Timings.PromptDelay, v.Timings.PayoutDelay),
		DimSlowSettlement:    onOff(v.SlowSettlement, fmt.Sprintf("tens of seconds: push prompt %s, payout %s, each object up to %s more", v.Timings.PromptDelay, v.Timings.PayoutDelay, v.Timings.Spread), "no"),
		DimLatency:           v.Latency.String(),
		DimEventOrder:        order,
		DimDuplicates:        onOff(v.LostAcks, "about half the events delivered again after an acknowledgement is lost", "none"),
		DimRetrySchedule:     durations(v.RetrySchedule),
		DimKeyInUse:          onOff(v.KeyInUse, "409 idempotency_key_in_use at once", "waits for the first and replays it"),
		DimResponseHeaders:   orNone(headers),
		DimWebhookHeaders:    orNone(hooks),
		DimJSON:              strings.Join(jsonStyle, ", "),
		DimTimestamps:        timeStyle,
		DimWebhookEndpoints:  onOff(v.WebhookEndpoints, "present", "absent (404)"),
		DimEventLogExtension: onOff(v.EventLog, "present", "absent (404)"),
		DimGeneratedRefs:     string(v.References),
		DimHumanText:         onOff(v.Reworded, "other words", "as the sandbox"),
		DimErrorOrder:        onOff(v.ErrorsReversed, "reversed", "as the sandbox"),
		DimListOrder:         onOff(v.ListsReversed, "reversed", "as the sandbox"),
		DimEventFields:       onOff(v.EventFields, "livemode and api_version in every event, channel in its object", "none"),
		DimExampleObjects:    onOff(v.ExampleObjects, "present (the sandbox's seed data)", "absent"),
		DimEventPages:        pageCap(v.EventPageCap),
		DimRateLimits:        rateLimit(v.RateLimitEvery),
		DimEndpointSecrets:   secretSize(v.SecretBytes),
		DimNewEventTypes:     onOff(v.NewEventTypes, "payment.created and payout.created sent to the object's webhook_url", "none"),
		DimRateLimitFields:   onOff(!v.NoRateLimitFields, "sent, as the sandbox", "none, and no limit"),
		DimReferenceSet:      onOff(v.ReferenceSubset, "some countries and banks left out (each country with odds 2 in 5, each bank 1 in 3; every other seed none in the country listed first)", "as the sandbox"),
	}
	dims := Dimensions()
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.Name + ": " + values[d.Name]
	}
	return out
}

// String is Lines, one per line, after the seed.
func (v Variant) String() string {
	return fmt.Sprintf("variant of seed %d\n  %s", v.Seed, strings.Join(v.Lines(), "\n  "))
}

func secretSize(n int) string {
	if n == 0 {
		return "as the sandbox (32 bytes)"
	}
	return fmt.Sprintf("%d bytes", n)
}

func rateLimit(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("every %dth request answered 429 with Retry-After: 1", n)
}

func pageCap(n int) string {
	if n == 0 {
		return "as many as limit asks (20 when left out)"
	}
	return fmt.Sprintf("at most %d per page, whatever limit asks", n)
}

func orNone(parts []string) string {
	if len(parts) == 0 {
		return "as the sandbox"
	}
	return strings.Join(parts, "; ")
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ", ")
}

// Options returns the sandbox options that apply the variant. Give them to sandbox.New after the other
// options, since they set the timings and the retry schedule; build them anew for every sandbox, since
// they hold that sandbox's translations of ids.
func (v Variant) Options() []sandbox.Option {
	st := newState(v)
	opts := []sandbox.Option{
		sandbox.WithTimings(v.Timings),
		sandbox.WithRetrySchedule(v.RetrySchedule),
		sandbox.WithHooks(sandbox.Hooks{Middleware: st.middleware, Outgoing: st.outgoing}),
	}
	if v.FinalEventFirst {
		opts = append(opts, sandbox.WithIndependentDeliveries())
	}
	if !v.ExampleObjects {
		opts = append(opts, sandbox.WithSeedData(false))
	}
	if v.NoRateLimitFields {
		opts = append(opts, sandbox.WithRateLimit(0))
	}
	return append(opts, v.Latency.Options(v.Seed)...)
}
