package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/links"
	"github.com/malipo/terraform-provider-malipo/contracttests/sequences"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Generated checks: every other check sends one of the document's examples, or an example with one
// field made invalid, so an implementation that breaks only on other valid input passes them (a 500 on
// a narration holding "é", a payout above a limit the document does not have, a narration cut short,
// an amount rounded, a pattern-valid character refused). For each request body of the document these
// checks send bodies generated from its schema, with the run's seed:
//
//   - `.valid`: boundary cases first (each end of every length and range, each enum value, each test
//     value, a pattern's whole alphabet, text in other scripts, optional fields absent and present),
//     then random draws, up to the run's budget (Config.Generated). Each must be accepted with a
//     documented status and a response valid against the document, never a 5xx, and every value it
//     set must come back as sent: in the response, through each read-back the operation's links name,
//     and in every event about the object ("Values as sent", the document's introduction).
//   - `.invalid`: valid bodies with one property broken in a way no derived mutation breaks it (null,
//     one character past maxLength counted in characters of every script, a refused character at a
//     drawn place, one step past a bound, off the step), each refused with 400 naming the property.
//
// A failing body is shrunk before it is reported: fields dropped, values simplified, text shortened,
// numbers moved toward the minimum, as long as the same property still fails; the failure shows the
// smallest body, the seed, and the curl line that sends it.

// acceptQuote and echoQuote are the document's rules the valid bodies are judged by.
const (
	acceptQuote = "A request body its schema allows is accepted, unless a rule this document states refuses it (a merchant `reference` already used, unknown reference data, a number the prose requires)."
	echoQuote   = "Every value a request sets is stored as sent and returned as sent: in the response, when the object is read back, and in every event about it."
	namesQuote  = "`errors` names every offending field, up to 100"
	badRequest  = "#/components/responses/BadRequest/description"
)

// maxShrinkSteps bounds the requests shrinking one failure may send: enough for a binary search over
// a payout's whole range (2^53) after a few properties are dropped.
const maxShrinkSteps = 64

// genConcurrency is how many generated bodies of one check are sent and read back at once. The wait for
// a body's events holds none of these: every body's wait runs at once, so a check costs one settlement
// of the target, not one per few bodies.
const genConcurrency = 4

// genTarget is one request body of the document and the properties its generated bodies are made of.
type genTarget struct {
	bt     bodyTarget
	fields []*genField
	// params is set for an operation's parameters check (generated_params.go): the fields
	// are its path and query parameters, and a case is a request path, not a body.
	params []*genField
}

// generatedChecks returns two checks per request body of the document (see above).
func generatedChecks(spec *openapi.Spec) ([]*harness.Check, error) {
	targets, err := bodyTargets(spec)
	if err != nil {
		return nil, err
	}
	tv, err := spec.TestValuesOrNone()
	if err != nil {
		return nil, err
	}
	var checks []*harness.Check
	for _, bt := range targets {
		g := &genTarget{bt: bt, fields: genFields(bt.schema, bt.location, tv)}
		id, what := "generated."+bt.op.ID, bt.op.ID
		if bt.branch != "" {
			id, what = id+"."+bt.branch, what+" ("+bt.branch+")"
		}
		checks = append(checks,
			&harness.Check{ID: id + ".valid", Category: harness.CategoryGenerated, Covers: []string{bt.op.ID}, Extension: bt.extension,
				Rule: harness.Rule{Pointer: infoDescription, Quote: acceptQuote},
				Doc:  what + " accepts generated bodies its schema allows (boundaries, other scripts, random) and returns every value as sent, on read-back and in events",
				Run:  g.runValid},
			&harness.Check{ID: id + ".invalid", Category: harness.CategoryGenerated, Covers: []string{bt.op.ID}, Extension: bt.extension,
				Rule: harness.Rule{Pointer: badRequest, Quote: namesQuote},
				Doc:  errorDoc(what+" with one generated property broken", api.CodeValidationFailed) + ", naming the property",
				Run:  g.runInvalid})
	}
	return checks, nil
}

// boundaryCount is how many bodies the boundary cases need: every case of the property that has most,
// and at least three, so that each optional property is both absent and present.
func (g *genTarget) boundaryCount() int {
	n := 3
	for _, f := range g.fields {
		n = max(n, len(f.Cases))
	}
	return n
}

// design draws body i: the boundary cases in turn for the first bodies, random values after. The
// seed decides each property's value and which optional properties are left out; the run fills in the
// rest (genCase): its reference data, receiver and a unique part of the merchant reference.
func (g *genTarget) design(r *rand.Rand, i int) valuegen.Design {
	d := valuegen.NewDesign()
	boundary := i < g.boundaryCount()
	for k, f := range g.fields {
		if !f.Required {
			if boundary {
				d.Absent[f.Name] = (i+k)%3 == 2
			} else {
				d.Absent[f.Name] = r.IntN(4) == 0
			}
		}
		switch {
		case boundary && len(f.Cases) > 0:
			d.Values[f.Name] = f.Cases[i%len(f.Cases)]
		default:
			if v, ok := f.random(r); ok {
				d.Values[f.Name] = v
			} else if len(f.Cases) > 0 {
				d.Values[f.Name] = f.Cases[r.IntN(len(f.Cases))]
			}
		}
	}
	g.keepMinProperties(d)
	return d
}

// keepMinProperties puts back optional properties, in order, until the body has as many as the
// schema's minProperties asks (an update must change something).
func (g *genTarget) keepMinProperties(d valuegen.Design) {
	present := d.Present(g.valueFields())
	for _, f := range g.fields {
		if present >= g.minProperties() {
			return
		}
		if d.Absent[f.Name] {
			d.Absent[f.Name] = false
			present++
		}
	}
}

// genCase is one body as sent: the design filled in for the run.
type genCase struct {
	design valuegen.Design
	index  int
	body   map[string]any
	// path is the operation's path with its parameters naming an object of the check's.
	path string
	// hookPath is the receiver path the object's events go to; "" when the body names none.
	hookPath string
	// endpoint is the webhook endpoint path names, when it names one: deleted as soon as the case
	// passes (release), since a merchant has at most the document's cap of endpoints and a check
	// draws more bodies than that; a failing case keeps it for shrinking, until the check ends.
	endpoint string
	// skipEvents leaves the object's events unjudged (a shrinking candidate whose failure is not
	// about an event).
	skipEvents bool
}

// fill makes design a body for the run: reference data, receiver URLs and the unique part of the
// merchant reference come from the run, and the object a path parameter names is made for it.
func (g *genTarget) fill(t *harness.T, d valuegen.Design, index int) *genCase {
	c := &genCase{design: d, index: index, body: map[string]any{}}
	if g.params != nil {
		g.fillParameters(c)
		return c
	}
	for _, f := range g.fields {
		if d.Absent[f.Name] && f.Name != d.Broken {
			continue
		}
		if f.Name == d.Broken {
			c.body[f.Name] = d.Values[f.Name].V
			continue
		}
		switch f.role {
		case roleRun:
			switch f.Name {
			case "webhook_url", "url":
				path, hook := t.Hook()
				if index%2 == 1 {
					hook += valuegen.HookQuery
				}
				c.body[f.Name] = hook
				if f.Name == "webhook_url" {
					c.hookPath = path // the object's own events; an endpoint's url gets the merchant's
				}
			case "endpoint_id":
				existingEndpoint(t, c.body)
			default:
				if v := t.BodyInput(f.Name); v != nil {
					c.body[f.Name] = v
				}
			}
		case roleUnique:
			if v, ok := d.Values[f.Name].V.(string); ok {
				c.body[f.Name] = uniqueTail(f, v)
			}
		case roleGenerated, roleTestValue:
			if v, ok := d.Values[f.Name]; ok && v.V != nil {
				c.body[f.Name] = v.V
			}
		}
	}
	c.path = g.pathFor(t, c)
	return c
}

// uniqueTail replaces the end of a generated merchant reference with characters of the run's own, so
// that a run does not find the references of an earlier one taken; a reference too short to hold
// them keeps its generated value (and a target that has seen it answers the documented conflict).
func uniqueTail(f *genField, v string) string {
	runes := []rune(v)
	if len(runes) < uniqueTailLen+2 {
		return v
	}
	unique := string(runes[:len(runes)-uniqueTailLen]) + harness.NewID("")[:uniqueTailLen]
	if !f.AllowsText(unique) {
		return v
	}
	return unique
}

// uniqueTailLen is how many characters of a merchant reference uniqueTail makes the run's own.
const uniqueTailLen = 10

// roomForUniqueTail lengthens a merchant reference too short for uniqueTail, where its pattern and
// maxLength allow. An invalid body's reference is not what the body tests, and must be the run's own:
// a target that wrongly keeps the body keeps an object no valid request can make, under a reference
// another check may draw and look up (the parameters checks draw the shortest ones).
func (f *genField) roomForUniqueTail(v valuegen.Value) valuegen.Value {
	s, ok := v.V.(string)
	short := uniqueTailLen + 2 - len([]rune(s))
	if !ok || short <= 0 {
		return v
	}
	padded := s + strings.Repeat("0", short)
	if !f.AllowsText(padded) {
		return v
	}
	return valuegen.Value{V: padded, Label: v.Label + ", lengthened to take the run's unique tail"}
}

// pathFor returns the operation's path for c: a payment of its own (whose events go to a receiver
// path of c's) for an operation on a pending payment, else an object made for the check.
func (g *genTarget) pathFor(t *harness.T, c *genCase) string {
	op := g.bt.op
	if op.ID == api.OpCompletePayment().ID {
		path, hook := t.Hook()
		c.hookPath = path
		return urlOf(op, t.InitPayment("", hook, nil).Str("/data/paymentReference"))
	}
	path := pathToExisting(t, op)
	if get, ok := t.Spec().Operation(api.OpGetWebhookEndpoint().ID); ok && strings.HasPrefix(op.Path, objectPath(get.Path)) {
		c.endpoint = onlyPathValue(op.Path, path)
	}
	return path
}

// release deletes the webhook endpoint a passing case was given (genCase.endpoint).
func (g *genTarget) release(t *harness.T, c *genCase) {
	if c.endpoint == "" {
		return
	}
	if del, ok := t.Spec().Operation(api.OpDeleteWebhookEndpoint().ID); ok {
		t.Do(del.Method, urlOf(del, c.endpoint), nil, harness.CollectViolations(new([]report.Failure)), harness.InDocumentTerms())
	}
}

// problem is one way a generated body failed, with key telling problems apart for shrinking: a
// shrunk body must fail in the same way.
type problem struct {
	key     string
	failure report.Failure
}

// send sends c's body and returns the exchange and the response's violations of the document, as
// problems.
func (g *genTarget) send(t *harness.T, c *genCase) (*harness.Exchange, []problem) {
	var violations []report.Failure
	ex := t.Do(g.bt.op.Method, c.path, c.body, harness.CollectViolations(&violations), harness.InDocumentTerms())
	problems := make([]problem, 0, len(violations))
	for _, v := range violations {
		problems = append(problems, problem{"spec " + v.Pointer, v})
	}
	return ex, problems
}

// judgeValid sends a valid body and judges the answer, the read-backs and the events.
func (g *genTarget) judgeValid(t *harness.T, c *genCase) (problems []problem, seq uint64) {
	problems, seq, events := g.judgeValidSent(t, c)
	return append(problems, events()...), seq
}

// judgeValidSent is judgeValid in two parts: it sends the body, judges the answer and the read-backs,
// and returns the rest, which waits for the object's events and judges them (and then deletes what the
// body made), for the caller to run when it suits it: the run's bodies wait for their events together.
func (g *genTarget) judgeValidSent(t *harness.T, c *genCase) (problems []problem, seq uint64, events func() []problem) {
	op := g.bt.op
	ex, problems := g.send(t, c)
	seq = ex.Seq
	nothing := func() []problem { return nil }
	switch {
	case ex.Status >= 500:
		return append(problems, problem{"5xx", report.Failure{Message: fmt.Sprintf("answered %d to a body the document allows: %s", ex.Status, harness.Snippet(ex.Body)),
			Exchange: ex.String()}}), seq, nothing
	case ex.Status/100 != 2:
		if g.refusalAllowed(t, c, ex) {
			return nil, seq, nothing
		}
		return append(problems, problem{"refused " + strings.Join(ex.FieldErrors(), ","), report.Failure{
			Message:  fmt.Sprintf("refused a body its schema allows with %d (code %v, naming %q): %s", ex.Status, ex.Get("/code"), ex.FieldErrors(), harness.Snippet(ex.Body)),
			Exchange: ex.String(), Pointer: firstOf(ex.FieldErrors()), SpecLocation: g.bt.location}}), seq, nothing
	}
	removed := false
	defer func() {
		if !removed { // a check that ends here (Fatalf) still removes what it made
			g.removeMade(t, ex)
		}
	}()
	problems = append(problems, g.echoed(t, c.body, ex, op, "the response")...)
	src := sequences.RecordOf(t.Spec(), ex, c.body)
	_, ls, _ := links.Of(t.Spec(), op)
	for _, l := range ls {
		if l.Target.Method != http.MethodGet {
			continue
		}
		path, _, _, err := l.Request(src.Record)
		if err != nil {
			problems = append(problems, problem{"link " + l.Name, report.Failure{Message: "cannot follow the document's link " + l.Name + ": " + err.Error(), Exchange: ex.String()}})
			continue
		}
		var more []report.Failure
		back := t.Do(l.Target.Method, path, nil, harness.CollectViolations(&more), harness.InDocumentTerms())
		for _, v := range more {
			problems = append(problems, problem{"spec " + l.Name + v.Pointer, v})
		}
		if back.Status/100 != 2 {
			problems = append(problems, problem{"read-back " + l.Name, report.Failure{Message: fmt.Sprintf("reading the object back through the link %s (%s %s) answered %d: %s",
				l.Name, l.Target.Method, path, back.Status, harness.Snippet(back.Body)), Exchange: back.String()}})
			continue
		}
		problems = append(problems, g.echoed(t, c.body, back, l.Target, "the read-back "+l.Target.ID+" (link "+l.Name+")")...)
	}
	wait := nothing
	if c.hookPath != "" && !c.skipEvents {
		wait = g.eventsEcho(t, c, ex, src)
	}
	removed = true
	return problems, seq, func() []problem {
		defer g.removeMade(t, ex)
		return wait()
	}
}

// refusalAllowed says whether a refused valid body is one the document refuses by a rule of its own:
// a 400 that names only properties the body left out (the prose requires one there, as completing a
// payment made without a number requires the number), or the conflict of a merchant reference too short
// to be made unique per run.
func (g *genTarget) refusalAllowed(t *harness.T, c *genCase, ex *harness.Exchange) bool {
	fields := ex.FieldErrors()
	if ex.Status == http.StatusBadRequest && len(fields) > 0 && !slices.ContainsFunc(fields, func(f string) bool {
		_, sent := c.body[strings.SplitN(strings.TrimPrefix(f, "/"), "/", 2)[0]]
		return sent
	}) {
		return true
	}
	ref, _ := c.body["reference"].(string)
	status, known := t.ErrorStatus(api.CodeDuplicateReference)
	return known && ex.Status == status && int(ex.Num("/code")) == int(api.CodeDuplicateReference) && len([]rune(ref)) < 12
}

// removeMade deletes the object a generated body created (a webhook endpoint), at once: an enabled
// endpoint would receive every event of the run until the check ends. An endpoint a path named is
// the case's own and goes when the case passes (release).
func (g *genTarget) removeMade(t *harness.T, ex *harness.Exchange) {
	if ex.Status/100 != 2 || g.bt.cleanup == nil {
		return
	}
	if id := ex.Str("/data/" + g.bt.cleanupParam); id != "" {
		t.Do(g.bt.cleanup.Method, urlOf(g.bt.cleanup, id), nil, harness.CollectViolations(new([]report.Failure)), harness.InDocumentTerms())
	}
}

// echoed compares each property the body set with the member of the same name of the object in ex's
// data, where the response's schema gives the object that member, and returns a problem for each that
// differs or is missing.
func (g *genTarget) echoed(t *harness.T, body map[string]any, ex *harness.Exchange, op *openapi.Operation, where string) []problem {
	data, _ := openapi.ValueAt(decodeExact(ex.Body), []string{"data"})
	return compareObject(body, data, where, ex.String(), responseDataMembers(op, ex.Status))
}

// compareObject compares the body's properties with object's members, for the names members has (the
// object's schema): a member the object lacks is a problem too, unless the body sent an empty string,
// which clears a text.
func compareObject(body map[string]any, object any, where, exchange string, members map[string]bool) []problem {
	obj, ok := object.(map[string]any)
	if !ok {
		return nil
	}
	var out []problem
	for _, name := range slices.Sorted(maps.Keys(body)) {
		if !members[name] {
			continue
		}
		sent := body[name]
		got, present := obj[name]
		switch {
		case !present && sent == "":
			continue
		case !present:
			out = append(out, problem{"echo " + name + " " + where, report.Failure{
				Message:  fmt.Sprintf("%s has no %s; the request sent %s, and every value a request sets is stored and returned as sent", where, name, show(sent)),
				Exchange: exchange, Pointer: "/data/" + name, SpecLocation: infoDescription}})
		case !sameValue(sent, got):
			out = append(out, problem{"echo " + name + " " + where, report.Failure{
				Message:  fmt.Sprintf("%s holds %s %s, the request sent %s; every value a request sets is stored and returned as sent", where, name, show(got), show(sent)),
				Exchange: exchange, Pointer: "/data/" + name, SpecLocation: infoDescription}})
		}
	}
	return out
}

// responseDataMembers returns the members the schema of op's response with status gives its `data`.
func responseDataMembers(op *openapi.Operation, status int) map[string]bool {
	model := openapi.OperationModel(op)
	if model == nil || model.Responses == nil || model.Responses.Codes == nil {
		return nil
	}
	resp, ok := model.Responses.Codes.Get(strconv.Itoa(status))
	if !ok || resp == nil || resp.Content == nil {
		return nil
	}
	mt, ok := resp.Content.Get(harness.JSONMediaType)
	if !ok || mt == nil || mt.Schema == nil {
		return nil
	}
	return valuegen.Members(mt.Schema.Schema(), "data")
}

// eventObjectMembers returns the members the webhook of event type typ gives its `data.object`.
func eventObjectMembers(spec *openapi.Spec, typ string) map[string]bool {
	op, ok := spec.Webhook(typ)
	if !ok {
		return nil
	}
	sch, err := openapi.RequestBodySchema(op, "")
	if err != nil {
		return nil
	}
	return valuegen.Members(sch, "data", "object")
}

// eventsEcho completes a payment the body initialized (through the document's link to completePayment)
// and returns the wait for the object's final event, which compares every event's object with the body.
func (g *genTarget) eventsEcho(t *harness.T, c *genCase, created *harness.Exchange, src *sequences.Record) func() []problem {
	var out []problem
	failed := func() []problem { return out }
	sent := c.body
	_, ls, _ := links.Of(t.Spec(), g.bt.op)
	for _, l := range ls {
		if l.Target.ID != api.OpCompletePayment().ID {
			continue
		}
		path, _, _, err := l.Request(src.Record)
		if err != nil {
			out = append(out, problem{"link " + l.Name, report.Failure{Message: "cannot follow the document's link " + l.Name + ": " + err.Error(), Exchange: created.String()}})
			return failed
		}
		var body any
		if _, ok := sent["phone_number"]; !ok {
			body = map[string]any{"phone_number": t.Inputs().ApprovingPhone()}
		}
		var violations []report.Failure
		done := t.Do(l.Target.Method, path, body, harness.CollectViolations(&violations), harness.InDocumentTerms())
		if done.Status/100 != 2 {
			out = append(out, problem{"complete", report.Failure{Message: fmt.Sprintf("completing the generated payment through the link %s answered %d: %s",
				l.Name, done.Status, harness.Snippet(done.Body)), Exchange: done.String()}})
			return failed
		}
	}
	return func() []problem { return g.eventsJudged(t, c, created) }
}

// eventsJudged waits for the final event of the object c's body made and compares every event's
// object with the body.
func (g *genTarget) eventsJudged(t *harness.T, c *genCase, created *harness.Exchange) []problem {
	var out []problem
	sent := c.body
	// Whether every status change is delivered is the state and sequence checks' rule, not this one's:
	// an event still missing after the wait (a busy target queues deliveries) is left unjudged, and the
	// ones that arrived are compared.
	var ds []*webhooksink.Delivery
	_, _, _ = t.Watch("the final event of the generated object", func() (bool, string) {
		ds = t.Deliveries(c.hookPath)
		for _, d := range harness.Acknowledged(ds) {
			if api.PaymentStatus(d.ObjectStatus).Final() || api.PayoutStatus(d.ObjectStatus).Final() {
				return true, harness.DescribeDeliveries(ds)
			}
		}
		return false, harness.DescribeDeliveries(ds)
	})
	for _, d := range harness.Acknowledged(ds) {
		object, _ := openapi.ValueAt(decodeExact(d.Body), []string{"data", "object"})
		// Keyed by event type, not id: a shrunk body's event has another id but fails the same way.
		out = append(out, compareObject(sent, object, "the "+d.Type+" event", created.String(), eventObjectMembers(t.Spec(), d.Type))...)
	}
	return out
}

// judgeInvalid sends a body with one property broken and judges the refusal.
func (g *genTarget) judgeInvalid(t *harness.T, c *genCase) (problems []problem, seq uint64) {
	ex, problems := g.send(t, c)
	seq = ex.Seq
	defer g.removeMade(t, ex)
	pointer := "/" + c.design.Broken
	broke := fmt.Sprintf("%s set to %s (%s, breaking %s)", pointer, show(c.body[c.design.Broken]), c.design.Values[c.design.Broken].Label,
		g.fieldLocation(c.design.Broken)+c.design.Keyword)
	status, _ := t.ErrorStatus(api.CodeValidationFailed)
	switch {
	case ex.Status/100 == 2:
		problems = append(problems, problem{"accepted", report.Failure{Message: fmt.Sprintf("accepted a body with %s: answered %d", broke, ex.Status),
			Exchange: ex.String(), Pointer: pointer, SpecLocation: g.fieldLocation(c.design.Broken) + c.design.Keyword}})
	case ex.Status >= 500:
		problems = append(problems, problem{"5xx", report.Failure{Message: fmt.Sprintf("answered %d to a body with %s: %s", ex.Status, broke, harness.Snippet(ex.Body)),
			Exchange: ex.String(), Pointer: pointer}})
	case ex.Status != status || int(ex.Num("/code")) != int(api.CodeValidationFailed):
		problems = append(problems, problem{"status", report.Failure{Message: fmt.Sprintf("want %d (code %d) for a body with %s, got %d (code %v): %s",
			status, api.CodeValidationFailed, broke, ex.Status, ex.Get("/code"), harness.Snippet(ex.Body)), Exchange: ex.String(), Pointer: "/code"}})
	case !harness.NamesField(ex.FieldErrors(), pointer):
		problems = append(problems, problem{"names", report.Failure{Message: fmt.Sprintf("errors[] must name %q for a body with %s; it names %q", pointer, broke, ex.FieldErrors()),
			Exchange: ex.String(), Pointer: "/errors"}})
	}
	return problems, seq
}

func (g *genTarget) fieldLocation(name string) string {
	for _, f := range g.fields {
		if f.Name == name {
			return f.location
		}
	}
	return g.bt.location
}

// runValid is the `.valid` check.
func (g *genTarget) runValid(t *harness.T) {
	g.run(t, false)
}

// runInvalid is the `.invalid` check.
func (g *genTarget) runInvalid(t *harness.T) {
	g.run(t, true)
}

// run draws the check's bodies from the seed, judges them a few at a time, and reports the first that
// fails, shrunk.
func (g *genTarget) run(t *harness.T, invalid bool) {
	budget := t.Generated()
	if budget < 0 {
		t.Skip("generated checks are off (--generated -1)")
	}
	judge := g.judgeValid
	// sent judges a body up to the wait for its events, which it returns (judgeValidSent).
	var sent func(t *harness.T, c *genCase) ([]problem, uint64, func() []problem)
	if g.params != nil {
		judge = g.judgeParameters
	} else if !invalid {
		sent = g.judgeValidSent
	}
	r := t.Rand()
	var designs []valuegen.Design
	if invalid {
		judge = g.judgeInvalid
		designs = g.invalidDesigns(r, budget)
		if len(designs) == 0 {
			t.Skip("the schema of " + g.bt.op.ID + " has no property the generator can break")
		}
	} else {
		for i := range budget {
			designs = append(designs, g.design(r, i))
		}
	}
	type verdict struct {
		c        *genCase
		problems []problem
		seq      uint64
	}
	verdicts := make([]verdict, len(designs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, genConcurrency)
	for i, d := range designs {
		c := g.fill(t, d, i)
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			var ps []problem
			var seq uint64
			if sent != nil {
				var events func() []problem
				ps, seq, events = sent(t, c)
				<-slots
				ps = append(ps, events()...)
			} else {
				defer func() { <-slots }()
				ps, seq = judge(t, c)
			}
			if len(ps) == 0 {
				g.release(t, c)
			}
			verdicts[i] = verdict{c, ps, seq}
		}()
	}
	wg.Wait()
	for _, v := range verdicts {
		if v.c == nil || len(v.problems) == 0 {
			continue
		}
		shrunk, problems, seq, steps := g.shrink(t, v.c, v.problems, v.seq, judge)
		g.report(t, v.c, shrunk, problems, seq, steps)
		return
	}
}

// invalidDesigns draws n bodies that each break one property: the ways to break the properties in
// turn, each on a valid body drawn as the valid check draws its own.
func (g *genTarget) invalidDesigns(r *rand.Rand, n int) []valuegen.Design {
	type way struct {
		field string
		inv   valuegen.Invalid
	}
	var ways []way
	for _, f := range g.fields {
		for _, inv := range f.invalids(r) {
			ways = append(ways, way{f.Name, inv})
		}
	}
	if len(ways) == 0 {
		return nil
	}
	out := make([]valuegen.Design, n)
	for i := range out {
		d := g.design(r, i)
		w := ways[i%len(ways)]
		for _, f := range g.fields {
			if f.role == roleUnique && f.Name != w.field {
				d.Values[f.Name] = f.roomForUniqueTail(d.Values[f.Name])
			}
		}
		d.Values[w.field] = w.inv.Value
		d.Broken, d.Keyword = w.field, w.inv.Keyword
		out[i] = d
	}
	return out
}

// report records the shrunk failure: what failed, the body as generated and as shrunk, the seed, and
// the exchange whose curl line sends the smallest body.
func (g *genTarget) report(t *harness.T, first, shrunk *genCase, problems []problem, seq uint64, steps int) {
	var labels []string
	for _, name := range slices.Sorted(maps.Keys(first.body)) {
		if v, ok := first.design.Values[name]; ok && v.Label != "" {
			labels = append(labels, name+": "+v.Label)
		}
	}
	body, _ := json.Marshal(shrunk.body)
	context := fmt.Sprintf("generated body %d of seed %d (%s); shrunk in %d requests to %s — rerun with --seed %d",
		first.index, t.Seed(), strings.Join(labels, "; "), steps, body, t.Seed())
	for i, p := range problems {
		f := p.failure
		if i == 0 {
			f.Message += "\n" + context
		} else {
			f.Message += " (the same shrunk body)"
		}
		t.FailAbout(seq, f)
	}
}

// decodeExact decodes JSON keeping numbers as written (json.Number), so that an amount is compared to
// the cent and an integer past 2^53 exactly.
func decodeExact(data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// sameValue compares a sent value with the one returned: text character for character, numbers as
// decimals, lists of unique items in any order.
func sameValue(sent, got any) bool {
	switch s := sent.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameDecimal(string(s), string(g))
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return false
		}
		a, b := make([]string, len(s)), make([]string, len(g))
		for i := range s {
			a[i], b[i] = show(s[i]), show(g[i])
		}
		sort.Strings(a)
		sort.Strings(b)
		return slices.Equal(a, b)
	}
	return show(sent) == show(got)
}

// show writes a value as JSON, for messages.
func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 300
	if len(data) > most {
		return string(data[:most]) + "…"
	}
	return string(data)
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
