// Package sequences is the conformance suite's stateful sequences: several objects' lives walked
// through the document's OpenAPI links (package links) and run in an interleaving drawn from the run's
// seed.
package sequences

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/links"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Stateful sequences: each object's life is walked through the OpenAPI `links` of the document, and
// the lives of several objects are run interleaved in a random order drawn from the run's seed.
//
// The lifecycle checks (package checks, state.go) drive one object at a time, through calls written in the
// check. An implementation can pass them all and still mix objects up when their lives overlap: a
// status read answering with another object's state, an event sent twice when two objects settle at
// once, a webhook payload built from stale state. These checks create a few objects the way the
// lifecycle checks do (the create is the root of each sequence, chosen with the test value that gives
// it its outcome) and take every later step from the links declared on the responses: which operation
// comes next, and the values of its parameters, computed from the runtime expressions
// (`$response.body#/data/paymentReference`, `$request.path.payment_reference`, ...) against the
// exchange the link is declared on. Nothing but the create is written here, so a link added, removed
// or changed in the document changes the sequences.
//
// What is checked along the way: every response is valid against the document (Do validates it); a
// final status read through a linked operation never changes afterwards, within the sequence and after
// a settle window; each status change an object was seen to make is delivered, once per destination
// (at-least-once delivery repeats a webhook-id, and that is fine; two webhook-ids for one status change
// of one object to one destination are two events); no delivery reports a change the object did not
// make; every delivery verifies with the destination's secret; and the final status and failure_reason
// every linked status operation reports agree with the last webhook's and with the test value's.
//
// Cost: each check sends about 25 requests and waits once for a settle window; against the embedded
// sandbox each takes about 0.3 s. The interleaving is an order, not concurrency, so that a seed replays
// it exactly: its steps go one at a time, which on a loaded machine (the self-test's ten faulty suites
// at once) makes these the longest checks of a run, several seconds each. They are registered first
// so that they overlap the others, and the objects are few: 2 payments and 2 payouts (a success and a
// failure of each, mobile and bank) in one check, 2 endpoints with a payment and a payout in the other.

// CategorySequences covers stateful sequences: several objects' lives, walked through the document's
// links, run in a random interleaving drawn from the run's seed.
const CategorySequences harness.Category = "sequences"

// Checks are the stateful sequences: payments and payouts, and webhook endpoints (an extension)
// with a payment and a payout to deliver to them.
func Checks() []*harness.Check {
	return []*harness.Check{
		{ID: "sequences.payments-payouts", Category: CategorySequences,
			Covers: []string{"initializePayment", "completePayment", "getTransactionStatus", "processPayout", "getPayout"},
			Doc:    "2 payments and 2 payouts walked through the document's links in a seeded random interleaving: one event per status change per destination, final states stay final, status API and webhooks agree",
			Rule:   harness.Rule{Pointer: "#/tags/" + harness.EventsTagIndex + "/description", Quote: "Webhook deliveries the service sends; one per status change."},
			Run: func(t *harness.T) {
				runSequences(t, []seqWant{{paymentKind, 2}, {payoutKind, 2}})
			}},
		{ID: "sequences.webhook-endpoints", Category: CategorySequences, Extension: true,
			Covers: []string{"createWebhookEndpoint", "rotateWebhookEndpointSecret", "getWebhookEndpoint", "deleteWebhookEndpoint", "initializePayment", "completePayment", "processPayout"},
			Doc:    "2 webhook endpoints (create, rotate-secret, read, delete through the links) interleaved with a payment and a payout: each gets every status change made during its life once, signed with its secrets",
			Rule:   harness.Rule{Pointer: "#/tags/" + harness.EndpointsTagIndex + "/description", Quote: "URLs that receive every event of the types they subscribe to, signed with their own `whsec_` secret."},
			Run: func(t *harness.T) {
				runSequences(t, []seqWant{{endpointKind, 2}, {paymentKind, 1}, {payoutKind, 1}})
			}},
	}
}

// seqStepKind is what a step of a sequence does.
type seqStepKind int

const (
	// seqCreate creates the object: the root of its sequence, the one step not taken from a link.
	seqCreate seqStepKind = iota
	// seqAct follows a link to an operation that changes the object (neither GET nor DELETE).
	seqAct
	// seqRead follows a link to a GET: it reads the object.
	seqRead
	// seqFinal waits, through every linked read, for the object's final status (objects with a status).
	seqFinal
	// seqEnd follows a link to a DELETE: the object's last step.
	seqEnd
)

// seqStep is one step of a sequence.
type seqStep struct {
	Kind seqStepKind
	// Op is the operation the step calls (the create's for seqCreate; none for seqFinal).
	Op *openapi.Operation
	// Link is the link the step follows (nil for seqCreate and seqFinal); From is the index of the step
	// whose exchange its runtime expressions read.
	Link *links.Link
	From int
	// Code is the response the step's own exchange must have: the documented success whose links the
	// walk followed from it (create and act steps; "" for the others).
	Code string
}

// label names the step in an interleaving.
func (s seqStep) label() string {
	switch s.Kind {
	case seqFinal:
		return "await-final"
	case seqCreate:
		return s.Op.ID
	}
	return s.Op.ID + "(via " + s.Link.Name + ")"
}

// seqPlan is one object's sequence as the links of the document give it.
type seqPlan struct {
	Steps []seqStep
	// Skipped are the links the walk did not follow, each with why.
	Skipped []string
}

// planSequence walks the links of the document from the success response of the operation root: each
// create or act step's links are followed in document order, a GET as a read right after it, an
// operation that changes the object as the next act (each operation once, so that the walk ends), and
// the DELETE offered last as the sequence's end. A link the walk cannot follow on its own (its target
// needs a request body the link does not give, or a path parameter it gives no value for, or an
// operation the document does not have) is listed in Skipped with why.
func planSequence(spec *openapi.Spec, root string) (seqPlan, error) {
	op, ok := spec.Operation(root)
	if !ok || op.Webhook {
		return seqPlan{}, fmt.Errorf("the document has no operation %s", root)
	}
	plan := seqPlan{Steps: []seqStep{{Kind: seqCreate, Op: op, From: -1}}}
	walked := map[string]bool{root: true}
	var end *seqStep
	for i := 0; i < len(plan.Steps); i++ {
		s := plan.Steps[i]
		if s.Kind != seqCreate && s.Kind != seqAct {
			continue
		}
		code, ls, skipped := links.Of(spec, s.Op)
		plan.Steps[i].Code = code
		plan.Skipped = append(plan.Skipped, skipped...)
		var acts []seqStep
		for _, l := range ls {
			step := seqStep{Op: l.Target, Link: l, From: i}
			switch {
			case l.Target.Method == http.MethodGet:
				step.Kind = seqRead
				plan.Steps = append(plan.Steps, step)
			case l.Target.Method == http.MethodDelete:
				step.Kind = seqEnd
				end = &step
			case walked[l.Target.ID]:
			default:
				if why := unwalkable(l); why != "" {
					plan.Skipped = append(plan.Skipped, fmt.Sprintf("%s (%s): %s", l.Name, l.Pointer, why))
					continue
				}
				walked[l.Target.ID] = true
				step.Kind = seqAct
				acts = append(acts, step)
			}
		}
		plan.Steps = append(plan.Steps, acts...)
	}
	if end != nil {
		plan.Steps = append(plan.Steps, *end)
	}
	return plan, nil
}

// unwalkable says why a sequence cannot follow l on its own: its target requires a body the link does
// not give, or has a path parameter the link gives no value for; "" when it can.
func unwalkable(l *links.Link) string {
	if l.Target.BodyRequired && l.Body == "" {
		return l.Target.ID + " requires a request body, and the link gives none (requestBody)"
	}
	given := map[string]bool{}
	for _, p := range l.Params {
		if in, name := links.ParamLocation(l.Target, p[0]); in == "path" {
			given[name] = true
		}
	}
	for _, seg := range strings.Split(l.Target.Path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok && !given[strings.TrimSuffix(name, "}")] {
			return "the link gives no value for the path parameter " + seg + " of " + l.Target.ID
		}
	}
	return ""
}

// seqKind is a kind of object a sequence can be run for: its create, the root of the walk, and what
// the check needs the links to reach.
type seqKind struct {
	name string
	root api.Operation
	// reach are the operations the check drives the object through: a walk of the document's links
	// that does not reach one cannot exercise what the check is about, and the check skips naming it.
	reach []api.Operation
	// status is true for objects with a status, events and test values (payments and payouts).
	status bool
}

var (
	paymentKind  = seqKind{name: "payment", root: api.OpInitializePayment(), reach: []api.Operation{api.OpCompletePayment()}, status: true}
	payoutKind   = seqKind{name: "payout", root: api.OpProcessPayout(), status: true}
	endpointKind = seqKind{name: "endpoint", root: api.OpCreateWebhookEndpoint(),
		reach: []api.Operation{api.OpRotateWebhookEndpointSecret(), api.OpGetWebhookEndpoint(), api.OpDeleteWebhookEndpoint()}}
)

// seqWant asks for n objects of a kind.
type seqWant struct {
	kind seqKind
	n    int
}

// seqObserved is a status an object was seen in, and the step of the interleaving that saw it.
type seqObserved struct {
	status, reason string
	at             int
	ex             *harness.Exchange
}

// seqChange is a status change an object was seen to make: after the step at `after` it was still in
// `from`, at `seen` it was in `to`.
type seqChange struct {
	from, to    string
	after, seen int
}

// seqObject is one object of a run of sequences.
type seqObject struct {
	name  string // "payment#2"
	kind  seqKind
	value openapi.TestValue // the test value it was created with (objects with a status)
	want  openapi.Outcome
	steps []seqStep
	next  int
	recs  []*Record // by index in steps

	id   string // the id its events carry (Delivery.ObjectID)
	hook string // the receiver path of its own webhook_url, "" when it has none

	last    *seqObserved // the last status seen
	final   *seqObserved // the final status, once seen
	changes []seqChange

	// endpoints: the receiver path, every secret the endpoint was given, and the steps of the
	// interleaving at which it was created and deleted (-1 before).
	path               string
	secrets            []webhook.Secret
	created, deletedAt int
}

// interleave returns a random interleaving of sequences of the given lengths: position by position,
// which sequence takes its next step. Each step is drawn in proportion to the steps each sequence has
// left, which makes every interleaving that keeps each sequence's own order equally likely.
func interleave(r *rand.Rand, lengths []int) []int {
	left := slices.Clone(lengths)
	total := 0
	for _, n := range left {
		total += n
	}
	order := make([]int, 0, total)
	for ; total > 0; total-- {
		n := r.IntN(total)
		for i, l := range left {
			if n < l {
				order = append(order, i)
				left[i]--
				break
			}
			n -= l
		}
	}
	return order
}

// seqRun is one run of interleaved sequences.
type seqRun struct {
	t     *harness.T
	objs  []*seqObject
	order []int
	pos   int
}

// runSequences plans each kind's sequence from the document's links, creates the objects' inputs from
// the test values (drawn from the check's random stream), runs the interleaving and checks the result.
func runSequences(t *harness.T, wants []seqWant) {
	r := &seqRun{t: t}
	rng := t.Rand()
	tv, err := t.Spec().TestValuesOrNone()
	if err != nil {
		t.Fatalf("read the document's test values: %v", err)
	}
	for _, w := range wants {
		steps := r.stepsOf(w.kind)
		values := seqTestValues(t, rng, tv, w.kind, w.n)
		for i := range w.n {
			o := &seqObject{name: fmt.Sprintf("%s#%d", w.kind.name, i+1), kind: w.kind, steps: steps, created: -1, deletedAt: -1}
			o.recs = make([]*Record, len(steps))
			if w.kind.status {
				o.value, o.want = values[i], values[i].Outcome
				o.hook, _ = t.Hook()
			} else {
				o.path, _ = t.Hook()
			}
			r.objs = append(r.objs, o)
		}
	}
	lengths := make([]int, len(r.objs))
	for i, o := range r.objs {
		lengths[i] = len(o.steps)
	}
	r.order = interleave(rng, lengths)
	t.Cleanup(func() {
		if t.Failed() {
			t.Errorf("to reproduce: --seed %d --run '^%s$'; the interleaving (stopped at step %d of %d): %s; the objects: %s",
				t.Seed(), strings.ReplaceAll(t.ID(), ".", `\.`), r.pos+1, len(r.order), r.describeOrder(), r.describeObjects())
		}
	})
	for r.pos = 0; r.pos < len(r.order); r.pos++ {
		o := r.objs[r.order[r.pos]]
		r.step(o, o.next)
		o.next++
	}
	r.pos = len(r.order) - 1
	r.checkDeliveries()
	t.Settle()
	// The reads after the window are not part of the interleaving: sent at once, they cost one round
	// trip rather than one per read, which on a loaded machine is most of the check's time.
	var wg sync.WaitGroup
	for _, o := range r.objs {
		for _, s := range finalReads(o) {
			if o.final != nil {
				wg.Go(func() { r.readFinal(o, s) })
			}
		}
	}
	wg.Wait()
}

// stepsOf returns the steps of a kind's sequence: the plan the links give, with a wait for the final
// status before the end for an object with a status. It skips the check when the links do not reach
// what it needs.
func (r *seqRun) stepsOf(k seqKind) []seqStep {
	t := r.t
	t.DocumentOperation(k.root)
	plan, err := planSequence(t.Spec(), k.root.ID)
	if err != nil {
		t.Skip(err.Error())
	}
	var walked []string
	reached := map[string]bool{}
	reads := 0
	for _, s := range plan.Steps {
		walked = append(walked, s.label())
		reached[s.Op.ID] = true
		if s.Kind == seqRead {
			reads++
		}
	}
	describe := func() string {
		s := "the walk reached " + strings.Join(walked, " → ")
		if len(plan.Skipped) > 0 {
			s += "; links not followed: " + strings.Join(plan.Skipped, "; ")
		}
		return s
	}
	for _, need := range k.reach {
		if !reached[need.ID] {
			t.Skip(fmt.Sprintf("the document's links from %s do not reach %s, which this check drives a %s through (%s): add an OpenAPI link to it on the response of the operation before it",
				k.root.ID, need.ID, k.name, describe()))
		}
	}
	if k.status && reads == 0 {
		t.Skip(fmt.Sprintf("the document's links from %s reach no operation that reads a %s (a GET), which this check reads its status through (%s)", k.root.ID, k.name, describe()))
	}
	steps := slices.Clone(plan.Steps)
	if k.status {
		at := len(steps)
		if steps[at-1].Kind == seqEnd {
			at--
		}
		steps = slices.Insert(steps, at, seqStep{Kind: seqFinal, From: -1})
	}
	return steps
}

// seqTestValues draws n test values for objects of a kind from the check's stream, different statuses
// and outcomes first; payouts alternate between mobile and bank values. Kinds without a status get none. It skips
// the check when the document has no test value of the kind.
func seqTestValues(t *harness.T, rng *rand.Rand, tv openapi.TestValues, k seqKind, n int) []openapi.TestValue {
	var pools [][]openapi.TestValue
	switch k.root.ID {
	case api.OpInitializePayment().ID:
		pools = [][]openapi.TestValue{tv.Entries(openapi.TestValuePayments)}
	case api.OpProcessPayout().ID:
		pools = [][]openapi.TestValue{tv.Entries(openapi.TestValueMobilePayouts), tv.Entries(openapi.TestValueBankPayouts)}
	default:
		return nil
	}
	pools = slices.DeleteFunc(pools, func(p []openapi.TestValue) bool { return len(p) == 0 })
	if len(pools) == 0 {
		t.Skip("the document has no x-malipo-test-values for a " + k.name + ", which this check creates with one")
	}
	var out []openapi.TestValue
	seen := map[openapi.Outcome]bool{}
	statuses := map[string]bool{}
	for i := range n {
		pool := slices.Clone(pools[i%len(pools)])
		rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
		// A status not drawn yet, else an outcome not drawn yet, else any: most test values fail, each
		// in its own way, and a draw without this would seldom include a success.
		pick := pool[0]
		if k := slices.IndexFunc(pool, func(v openapi.TestValue) bool { return !statuses[v.Status] }); k >= 0 {
			pick = pool[k]
		} else if k := slices.IndexFunc(pool, func(v openapi.TestValue) bool { return !seen[v.Outcome] }); k >= 0 {
			pick = pool[k]
		}
		seen[pick.Outcome], statuses[pick.Status] = true, true
		out = append(out, pick)
	}
	return out
}

// failf records a failure about the exchange or delivery seq, naming the step of the interleaving.
func (r *seqRun) failf(seq uint64, exchange, format string, args ...any) {
	r.t.FailAbout(seq, report.Failure{Message: fmt.Sprintf(format, args...) + fmt.Sprintf(" (seed %d, step %d of the interleaving)", r.t.Seed(), r.pos+1),
		Exchange: exchange})
}

// describeOrder spells the interleaving out: each position's object and step.
func (r *seqRun) describeOrder() string {
	next := make([]int, len(r.objs))
	parts := make([]string, len(r.order))
	for i, oi := range r.order {
		o := r.objs[oi]
		parts[i] = fmt.Sprintf("%d %s %s", i+1, o.name, o.steps[next[oi]].label())
		next[oi]++
	}
	return strings.Join(parts, ", ")
}

// describeObjects names each object with its test value and id.
func (r *seqRun) describeObjects() string {
	parts := make([]string, len(r.objs))
	for i, o := range r.objs {
		parts[i] = o.name
		if o.kind.status {
			parts[i] += fmt.Sprintf(" (%s %s, %s)", o.value.Kind, o.value.Input, harness.DescribeOutcome(o.want))
		}
		if o.id != "" {
			parts[i] += " id " + o.id
		}
	}
	return strings.Join(parts, ", ")
}

// step runs step i of o's sequence.
func (r *seqRun) step(o *seqObject, i int) {
	s := o.steps[i]
	switch s.Kind {
	case seqCreate:
		o.recs[i] = r.create(o)
		r.expectCode(o, s, o.recs[i])
		r.observe(o, o.recs[i].ex)
		o.created = r.pos
		r.noteSecret(o, o.recs[i].ex)
	case seqFinal:
		r.awaitFinal(o)
	case seqEnd:
		r.awaitDue(o)
		o.recs[i] = r.follow(o, s)
		o.deletedAt = r.pos
	default:
		o.recs[i] = r.follow(o, s)
		if s.Kind == seqAct {
			r.expectCode(o, s, o.recs[i])
		}
		r.observe(o, o.recs[i].ex)
		r.noteSecret(o, o.recs[i].ex)
	}
}

// create sends o's create with the test value it was given, its own webhook_url for an object with a
// status, and a subscription to every event type the document declares for an endpoint.
func (r *seqRun) create(o *seqObject) *Record {
	t := r.t
	var body map[string]any
	var ex *harness.Exchange
	switch o.kind.root.ID {
	case api.OpInitializePayment().ID:
		body = t.ExampleBody(api.OpInitializePayment(), "", map[string]any{"webhook_url": t.Receiver().URL(o.hook), "phone_number": harness.OrNil(o.value.Input), "reference": harness.NewID("conform-")})
		ex = t.Do(api.OpInitializePayment().Method, api.OpInitializePayment().URL(), body)
		o.id = ex.Str("/data/paymentReference")
	case api.OpProcessPayout().ID:
		if o.value.Kind == openapi.TestValueBankPayouts {
			body = t.BankPayout(o.value.Input, t.Receiver().URL(o.hook))
		} else {
			body = t.MobilePayout(o.value.Input, t.Receiver().URL(o.hook))
		}
		ex = t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), body)
		o.id = ex.Str("/data/payout_id")
	default:
		types := make([]api.EventType, 0)
		for _, typ := range t.Spec().EventTypes() {
			types = append(types, api.EventType(typ))
		}
		body = t.EndpointBody(t.Receiver().URL(o.path), types...)
		ex = t.Do(api.OpCreateWebhookEndpoint().Method, api.OpCreateWebhookEndpoint().URL(), body)
		o.id = ex.Str("/data/id")
		if o.id != "" {
			// Not CreateEndpoint's cleanup, which deletes it again: the sequence's own delete comes from
			// the links, and a second delete's 404 would be judged too.
			t.Cleanup(func() {
				if o.deletedAt < 0 {
					t.Do(api.OpDeleteWebhookEndpoint().Method, api.OpDeleteWebhookEndpoint().URL(o.id), nil)
				}
			})
		}
	}
	rec := RecordOf(t.Spec(), ex, body)
	if o.kind.status && o.id == "" {
		r.failf(ex.Seq, ex.String(), "the %s's create answered without the id its events are about: %s", o.kind.name, harness.Snippet(ex.Body))
		runtime.Goexit()
	}
	return rec
}

// follow sends the request step s's link describes, its values computed from the exchange of the step
// the link is declared on.
func (r *seqRun) follow(o *seqObject, s seqStep) *Record {
	t := r.t
	src := o.recs[s.From]
	path, next, body, err := s.Link.Request(src.Record)
	if err != nil {
		r.linkFails(o, s, src, err.Error())
	}
	opts := []harness.ReqOption{harness.InDocumentTerms()}
	for name := range next.Header {
		opts = append(opts, harness.WithHeader(name, next.Header.Get(name)))
	}
	rec := &Record{Record: next, ex: t.Do(s.Op.Method, path, body, opts...)}
	rec.Body, rec.Response = links.JSONValue(body), responseOf(rec.ex)
	if rec.ex.Status < 200 || rec.ex.Status > 299 {
		r.failf(rec.ex.Seq, rec.ex.String(), "%s's step %s answered %d: following the link %s from a %s answer must succeed (%s)",
			o.name, s.label(), rec.ex.Status, s.Link.Name, s.Link.Pointer, harness.Snippet(rec.ex.Body))
		runtime.Goexit()
	}
	return rec
}

// linkFails ends the check: the link cannot be followed from the exchange it is declared on, which is
// the target's fault when that exchange lacks what the link reads (the document's response schema says
// what is there) and the document's when the expression is not one.
func (r *seqRun) linkFails(o *seqObject, s seqStep, src *Record, why string) {
	r.t.FailAbout(src.ex.Seq, report.Failure{Message: fmt.Sprintf("%s: the link %s to %s cannot be followed from %s: %s (seed %d, step %d of the interleaving)",
		o.name, s.Link.Name, s.Op.ID, src.ex.String(), why, r.t.Seed(), r.pos+1), Exchange: src.ex.String(), SpecLocation: s.Link.Pointer})
	runtime.Goexit()
}

// expectCode requires a create's or act's exchange to have the response whose links the walk followed.
func (r *seqRun) expectCode(o *seqObject, s seqStep, rec *Record) {
	if s.Code == "" || strconv.Itoa(rec.ex.Status) == s.Code {
		return
	}
	r.failf(rec.ex.Seq, rec.ex.String(), "%s's step %s answered %d, not the documented %s whose links the sequence follows: %s",
		o.name, s.label(), rec.ex.Status, s.Code, harness.Snippet(rec.ex.Body))
	runtime.Goexit()
}

// noteSecret adds the signing secret an endpoint's answer carries (create, rotate-secret) to those its
// deliveries may be signed with.
func (r *seqRun) noteSecret(o *seqObject, ex *harness.Exchange) {
	if o.kind.status {
		return
	}
	if s := ex.Str("/data/secret"); s != "" {
		secret, err := webhook.ParseSecret(s)
		if err != nil {
			r.failf(ex.Seq, ex.String(), "the endpoint's secret is not a whsec_ secret: %v", err)
			return
		}
		o.secrets = append(o.secrets, secret)
	}
}

// observe notes the status an answer reports for o: a change from the last status seen, or a final
// status that changed (a failure).
func (r *seqRun) observe(o *seqObject, ex *harness.Exchange) {
	if !o.kind.status {
		return
	}
	status := ex.Str("/data/status")
	if status == "" {
		return
	}
	seen := &seqObserved{status: status, reason: ex.Str("/data/failure_reason"), at: r.pos, ex: ex}
	if f := o.final; f != nil {
		if seen.status != f.status || seen.reason != f.reason {
			r.failf(ex.Seq, ex.String(), "%s's final state changed: %s/%s at step %d (%s), now %s/%s: final statuses never change",
				o.name, f.status, f.reason, f.at+1, f.ex.String(), seen.status, seen.reason)
		}
		return
	}
	if last := o.last; last != nil && last.status != status {
		o.changes = append(o.changes, seqChange{from: last.status, to: status, after: last.at, seen: r.pos})
	}
	o.last = seen // the object was in status at this step: a change to come is made after it
	if isFinal(status) {
		o.final = seen
	}
}

func isFinal(status string) bool {
	return api.PaymentStatus(status).Final() || api.PayoutStatus(status).Final()
}

// finalReads returns, for each operation o's sequence reads it through, the last read step offering it.
func finalReads(o *seqObject) []seqStep {
	var out []seqStep
	for i := len(o.steps) - 1; i >= 0; i-- {
		s := o.steps[i]
		if s.Kind == seqRead && !slices.ContainsFunc(out, func(x seqStep) bool { return x.Op.ID == s.Op.ID }) {
			out = append(out, s)
		}
	}
	slices.Reverse(out)
	return out
}

// awaitFinal waits, through every operation o's sequence reads it by, for a final status, and
// requires them to agree with each other and with the test value.
func (r *seqRun) awaitFinal(o *seqObject) {
	t := r.t
	var first *seqObserved
	for _, s := range finalReads(o) {
		ex := t.WaitFinal(o.name+" through "+s.Op.ID, func() *harness.Exchange { return r.follow(o, s).ex })
		got := &seqObserved{status: ex.Str("/data/status"), reason: ex.Str("/data/failure_reason"), at: r.pos, ex: ex}
		if first == nil {
			r.observe(o, ex)
			first = got
			if got.status != o.want.Status || got.reason != o.want.FailureReason {
				r.failf(ex.Seq, ex.String(), "%s (%s %s) ended %s/%s through %s; the test value promises %s",
					o.name, o.value.Kind, o.value.Input, got.status, got.reason, s.Op.ID, harness.DescribeOutcome(o.want))
			}
		} else if got.status != first.status || got.reason != first.reason {
			r.failf(ex.Seq, ex.String(), "%s's linked status operations disagree: %s reports %s/%s, %s reported %s/%s",
				o.name, s.Op.ID, got.status, got.reason, first.ex.Operation, first.status, first.reason)
		}
	}
}

// readFinal reads o again through the linked read s after a settle window: its final state must not
// have changed.
func (r *seqRun) readFinal(o *seqObject, s seqStep) {
	ex := r.follow(o, s).ex
	if ex.Str("/data/status") != o.final.status || ex.Str("/data/failure_reason") != o.final.reason {
		r.failf(ex.Seq, ex.String(), "%s's final state changed after a settle window: %s/%s at step %d, now %s/%s through %s: final statuses never change",
			o.name, o.final.status, o.final.reason, o.final.at+1, ex.Str("/data/status"), ex.Str("/data/failure_reason"), s.Op.ID)
	}
}

// changeOf returns the status change a delivery reports.
func changeOf(d *webhooksink.Delivery) string { return d.PreviousStatus + "→" + d.ObjectStatus }

// describeChanges lists status changes as `a→b`.
func describeChanges(cs []seqChange) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.from + "→" + c.to
	}
	return strings.Join(parts, ", ")
}

// delivered reports whether ds hold an acknowledged delivery of each change.
func delivered(ds []*webhooksink.Delivery, cs []seqChange) bool {
	acked := harness.Acknowledged(ds)
	for _, c := range cs {
		if !slices.ContainsFunc(acked, func(d *webhooksink.Delivery) bool { return d.PreviousStatus == c.from && d.ObjectStatus == c.to }) {
			return false
		}
	}
	return true
}

// awaitDue waits, before endpoint ep is deleted, for the status changes made while it existed to
// reach it: those seen by the steps after its create (the object was still in the old status after
// the endpoint was created) and before this one. "Deliveries already under way may still arrive once"
// after a delete, so the sequence waits rather than require anything of a delivery that races it.
func (r *seqRun) awaitDue(ep *seqObject) {
	for _, o := range r.objs {
		if !o.kind.status {
			continue
		}
		var due []seqChange
		for _, c := range o.changes {
			if c.after > ep.created {
				due = append(due, c)
			}
		}
		if len(due) == 0 {
			continue
		}
		r.t.WaitDeliveries(ep.path, fmt.Sprintf("%s's status changes %s, made while %s existed (created at step %d), at that endpoint (seed %d, step %d of the interleaving)",
			o.name, describeChanges(due), ep.name, ep.created+1, r.t.Seed(), r.pos+1),
			func(ds []*webhooksink.Delivery) bool { return delivered(harness.ForObject(ds, o.id), due) })
	}
}

// checkDeliveries waits for each object's status changes at its own webhook_url, then checks every
// destination's deliveries of each object: one webhook-id per status change, no change the object did
// not make, verified with the destination's secret, and the final event agreeing with the status API.
func (r *seqRun) checkDeliveries() {
	t := r.t
	for _, o := range r.objs {
		if !o.kind.status || o.hook == "" || len(o.changes) == 0 {
			continue
		}
		t.WaitDeliveries(o.hook, fmt.Sprintf("%s's status changes %s at its webhook_url (seed %d)", o.name, describeChanges(o.changes), t.Seed()),
			func(ds []*webhooksink.Delivery) bool { return delivered(ds, o.changes) })
	}
	for _, o := range r.objs {
		if !o.kind.status {
			continue
		}
		r.checkDestination(o, "its webhook_url", t.Deliveries(o.hook), []webhook.Secret{t.MerchantSecret()})
		for _, ep := range r.objs {
			if !ep.kind.status {
				r.checkDestination(o, "endpoint "+ep.name, harness.ForObject(t.Deliveries(ep.path), o.id), ep.secrets)
			}
		}
	}
}

// checkDestination checks the deliveries of o's events to one destination.
func (r *seqRun) checkDestination(o *seqObject, dest string, ds []*webhooksink.Delivery, secrets []webhook.Secret) {
	ids := map[string][]string{}
	for _, d := range ds {
		r.t.VerifyDelivery(d, secrets...)
		where := fmt.Sprintf("webhook %s %s to %s", d.Type, d.EventID, d.Path)
		change := changeOf(d)
		if !slices.ContainsFunc(o.changes, func(c seqChange) bool { return c.from+"→"+c.to == change }) {
			r.failf(d.Seq, where, "%s (%s) got an event for the status change %s, which %s did not make: it went %s",
				dest, o.name, change, o.id, describeChanges(o.changes))
			continue
		}
		id := d.Header.Get(api.HeaderWebhookID)
		if !slices.Contains(ids[change], id) {
			ids[change] = append(ids[change], id)
		}
		if o.final != nil && d.ObjectStatus == o.final.status && d.FailureReason != o.final.reason {
			r.failf(d.Seq, where, "the %s event of %s carries failure_reason %q, but every linked status operation reports %q (%s)",
				d.Type, o.name, d.FailureReason, o.final.reason, o.final.ex.String())
		}
	}
	for change, list := range ids {
		if len(list) > 1 {
			r.failf(0, "", "%s got %d events (webhook-ids %s) for %s's one status change %s: one event per status change, repeated deliveries keep their webhook-id",
				dest, len(list), strings.Join(list, ", "), o.name, change)
		}
	}
}

// Record is one request a sequence sent, as the links declared on its answer read it
// (links.Record), and the exchange itself, which failures point at.
type Record struct {
	*links.Record
	ex *harness.Exchange
}

// RecordOf is the record of an exchange the suite sent with body, for the runtime expressions of the
// links on its response.
func RecordOf(spec *openapi.Spec, ex *harness.Exchange, body any) *Record {
	return &Record{Record: links.RecordOf(spec, responseOf(ex), body), ex: ex}
}

// responseOf is what runtime expressions read of an exchange: its method, URL and answer.
func responseOf(ex *harness.Exchange) links.Response {
	return links.Response{Method: ex.Method, URL: ex.Path, Status: ex.Status, Header: ex.Header, JSON: ex.JSON}
}
