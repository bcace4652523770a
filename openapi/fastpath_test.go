package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fast path is correct when it never accepts what libopenapi-validator rejects (soundness: a wrong
// yes would let an invalid message through) and it is worth having when it accepts what the validator
// accepts (completeness: a wrong no costs only time). These tests compare the two on every example of
// the document and on thousands of mutations of them.

var fullOnly = sync.OnceValues(func() (*Spec, error) { return Load(embeddedSpec, WithoutFastPath()) })

func specs(t testing.TB) (fast, full *Spec) {
	t.Helper()
	fast, err := Default()
	require.NoError(t, err)
	full, err = fullOnly()
	require.NoError(t, err)
	return fast, full
}

func TestFastPathCoversTheWholeDocument(t *testing.T) {
	fast, full := specs(t)
	assert.Empty(t, fast.fastGaps, "every part of malipo.yaml should compile to fast checks")
	for _, op := range append(fast.Operations(), fast.webhookOperations()...) {
		require.NotNil(t, op.fast, op.ID)
		assert.NotNil(t, op.fast.request, op.ID)
		assert.Len(t, op.fast.responses, len(op.Responses), op.ID)
		for code, r := range op.fast.responses {
			assert.NotNil(t, r, "%s %s", op.ID, code)
		}
	}
	for _, op := range full.Operations() {
		assert.NotNil(t, op.fast, "WithoutFastPath still compiles the checks the validator lacks: %s", op.ID)
	}
}

// parameters returns the parameters of an operation and of its path item.
func parameters(op *Operation) []*v3.Parameter {
	var params []*v3.Parameter
	if op.pathItem != nil {
		params = append(params, pathItemOf(op).Parameters...)
	}
	return append(params, OperationModel(op).Parameters...)
}

// paramExample is a parameter's `example`, else the value of its first named example ("" without any).
// Parameters that Specmatic's contract tests use carry named examples, paired by name with responses.
func paramExample(p *v3.Parameter) string {
	if p.Example != nil {
		return p.Example.Value
	}
	for _, ex := range p.Examples.FromOldest() {
		if ex != nil && ex.Value != nil {
			return ex.Value.Value
		}
	}
	return ""
}

// documentedHeaders returns the names of the headers documented for the response to a status.
func documentedHeaders(op *Operation, status int) []string {
	_, key := op.fast.response(status)
	if resp := documentedResponse(OperationModel(op), key); resp != nil {
		return slices.Collect(resp.Headers.KeysFromOldest())
	}
	return nil
}

// exchange is one message to judge: a request (with the operation's keys), a response to it, or a
// webhook delivery.
type exchange struct {
	name     string
	op       *Operation
	method   string
	url      string
	header   http.Header
	body     []byte
	status   int         // responses only
	respHead http.Header // responses only
	webhook  bool
}

func (e exchange) request() *http.Request {
	r, err := http.NewRequest(e.method, e.url, bytes.NewReader(e.body))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", e.name, err)) // the cases only build parseable URLs
	}
	r.Header = e.header.Clone()
	return r
}

// verdicts returns whether the fast stage of fast accepts the exchange (routed as the Validate methods
// route it), and whether full, which has no fast stage, finds no violation.
func verdicts(t testing.TB, fast, full *Spec, e exchange) (plan, validator bool) {
	t.Helper()
	switch {
	case e.webhook:
		op, ok := fast.Webhook(e.op.Path)
		plan = ok && op.fast.acceptsDelivery(e.header, e.body)
		validator = len(full.ValidateWebhook(e.op.Path, e.header, e.body)) == 0
	case e.status != 0:
		r, _ := http.NewRequest(e.method, e.url, nil)
		resp := &http.Response{StatusCode: e.status, Header: e.respHead.Clone(), Body: io.NopCloser(bytes.NewReader(e.body))}
		op, ok := fast.FindOperation(r)
		plan = ok && op.fast.acceptsResponse(e.status, e.respHead, e.body)
		validator = len(full.ValidateResponse(r, resp)) == 0
	default:
		r := e.request()
		op, ok := fast.FindOperation(r)
		plan = ok && len(fast.checkSecurity(op, r.Header)) == 0 && op.fast.acceptsRequest(r, e.body)
		validator = len(full.ValidateRequest(e.request())) == 0
	}
	return plan, validator
}

// baseExchanges builds, for every operation, a request from the document's examples, a response for
// every documented status from its examples, and a delivery for every webhook example.
func baseExchanges(t testing.TB, fast *Spec) []exchange {
	t.Helper()
	examples, err := fast.Examples()
	require.NoError(t, err)
	var out []exchange
	for _, op := range append(fast.Operations(), fast.webhookOperations()...) {
		header := http.Header{"Content-Type": {jsonMediaType}}
		for _, alt := range op.KeyHeaders {
			for _, h := range alt {
				header.Set(h, "k_"+h)
			}
		}
		url := "http://127.0.0.1:8080" + op.Path
		for _, p := range parameters(op) {
			ex := paramExample(p)
			switch p.In {
			case "path":
				url = strings.Replace(url, "{"+p.Name+"}", ex, 1)
			case "query":
				sep := "?"
				if strings.Contains(url, "?") {
					sep = "&"
				}
				url += sep + p.Name + "=" + ex
			case "header":
				header.Set(p.Name, ex)
			}
		}
		base := exchange{op: op, method: op.Method, url: url, header: header, webhook: op.Webhook}
		prefix := op.location + "/requestBody/content/application~1json/"
		bodies := 0
		for _, ex := range examples {
			if strings.HasPrefix(ex.Location, prefix) && !strings.Contains(ex.Location, "/schema") {
				e := base
				e.name, e.body = ex.Location, ex.JSON
				out = append(out, e)
				bodies++
			}
		}
		if bodies == 0 {
			e := base
			e.name = op.location
			out = append(out, e)
		}
		for _, code := range op.Responses {
			prefix := op.location + "/responses/" + code + "/content/application~1json/"
			status, _ := strconv.Atoi(code)
			found := false
			for _, ex := range examples {
				if strings.HasPrefix(ex.Location, prefix) && !strings.Contains(ex.Location, "/schema") {
					e := base
					e.name, e.body, e.status = ex.Location, ex.JSON, status
					e.respHead = http.Header{"Content-Type": {jsonMediaType}}
					out = append(out, e)
					found = true
				}
			}
			if !found && !op.Webhook { // a bodiless response (204)
				e := base
				e.name, e.status, e.respHead = op.location+"/responses/"+code, status, http.Header{}
				out = append(out, e)
			}
		}
	}
	return out
}

// TestFastPathAcceptsEveryExample: the plan itself (not the fallback) accepts every documented
// message, so valid traffic takes the fast path.
func TestFastPathAcceptsEveryExample(t *testing.T) {
	fast, full := specs(t)
	exchanges := baseExchanges(t, fast)
	require.Greater(t, len(exchanges), 60)
	kinds := map[string]int{}
	for _, e := range exchanges {
		plan, validator := verdicts(t, fast, full, e)
		require.True(t, validator, "the validator rejects the example %s", e.name)
		assert.True(t, plan, "the fast path rejects the valid example %s", e.name)
		kinds[kind(e)]++
	}
	t.Logf("examples accepted by both: %v", kinds)
	assert.Positive(t, kinds["request"])
	assert.Positive(t, kinds["response"])
	assert.Positive(t, kinds["webhook"])
}

func kind(e exchange) string {
	switch {
	case e.webhook:
		return "webhook"
	case e.status != 0:
		return "response"
	}
	return "request"
}

// TestFastPathAgreesOnMutatedBodies mutates every field of every example body (remove it, give it
// each JSON type, push it past its bounds, add an unknown field beside it) and requires the plan's
// verdict to equal the validator's on each.
func TestFastPathAgreesOnMutatedBodies(t *testing.T) {
	fast, full := specs(t)
	var cases []exchange
	for _, e := range baseExchanges(t, fast) {
		if len(e.body) == 0 {
			continue
		}
		for i, body := range mutations(t, e.body) {
			m := e
			m.name, m.body = fmt.Sprintf("%s mutant %d: %s", e.name, i, body), body
			cases = append(cases, m)
		}
	}
	if testing.Short() || raceEnabled {
		// The validator takes about a millisecond to explain an invalid message, ten under -race.
		rng := rand.New(rand.NewPCG(1, 2))
		rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
		cases = cases[:len(cases)/10]
	}
	var accepted, rejected int
	var mu sync.Mutex
	parallel(len(cases), func(i int) {
		plan, validator := verdicts(t, fast, full, cases[i])
		if plan && !validator {
			t.Errorf("UNSOUND: the fast path accepts what the validator rejects: %s", cases[i].name)
		}
		if validator && !plan {
			t.Errorf("the fast path rejects what the validator accepts: %s", cases[i].name)
		}
		mu.Lock()
		defer mu.Unlock()
		if validator {
			accepted++
		} else {
			rejected++
		}
	})
	t.Logf("%d mutants: %d valid, %d invalid, all judged alike", len(cases), accepted, rejected)
	assert.Greater(t, rejected, accepted, "most mutants should be invalid, or the mutations test little")
	assert.Positive(t, accepted, "some mutants stay valid (optional fields removed, values within bounds)")
}

// TestFastPathIsSoundOnTheWire varies what is not the body: content types, parameters, path
// segments, statuses and headers. The plan may leave odd but valid spellings to the validator, so only
// soundness is required, and agreement on the plain cases.
func TestFastPathIsSoundOnTheWire(t *testing.T) {
	fast, full := specs(t)
	var cases []exchange
	add := func(e exchange, name string, change func(*exchange)) {
		m := e
		m.header, m.respHead = e.header.Clone(), e.respHead.Clone()
		change(&m)
		m.name = e.name + ": " + name
		cases = append(cases, m)
	}
	for _, e := range baseExchanges(t, fast) {
		if e.status != 0 {
			for _, ct := range []string{"", "text/plain", "application/json; charset=utf-8", "application/json;charset=UTF-8", "application/problem+json", "Application/JSON"} {
				add(e, "content type "+ct, func(m *exchange) { m.respHead.Set("Content-Type", ct) })
			}
			for _, status := range []int{200, 201, 204, 299, 400, 404, 418, 500, 503, 99, 1000} {
				add(e, "status "+strconv.Itoa(status), func(m *exchange) { m.status = status })
			}
			add(e, "empty body", func(m *exchange) { m.body = nil })
			for _, name := range documentedHeaders(e.op, e.status) {
				for _, v := range []string{"maybe", "true", "false", "0", "2", "-1", "1.5", "x y", ""} {
					add(e, fmt.Sprintf("header %s = %q", name, v), func(m *exchange) { m.respHead.Set(name, v) })
					add(e, fmt.Sprintf("header %s = %q, lower-case key", name, v), func(m *exchange) { m.respHead[strings.ToLower(name)] = []string{v} })
					add(e, fmt.Sprintf("header %s twice, then %q", name, v), func(m *exchange) { m.respHead[name] = []string{"1", v} })
				}
			}
			continue
		}
		add(e, "fragment", func(m *exchange) { m.url += "#frag" })
		add(e, "fragment after a path segment", func(m *exchange) { m.url = strings.Replace(m.url, "?", "#x?", 1) + "#x" })
		for _, ct := range []string{"", "text/plain", "application/json; charset=utf-8", "application/json;charset=utf-8", "application/json ; x=1", "application/x-www-form-urlencoded", "APPLICATION/JSON", "*/*"} {
			add(e, "content type "+ct, func(m *exchange) { m.header.Set("Content-Type", ct) })
		}
		add(e, "empty body", func(m *exchange) { m.body = nil })
		add(e, "body on a bodiless operation", func(m *exchange) { m.body = []byte(`{"x":1}`) })
		add(e, "trailing data", func(m *exchange) { m.body = append(bytes.Clone(m.body), []byte(" {}")...) })
		add(e, "invalid UTF-8", func(m *exchange) { m.body = bytes.Replace(m.body, []byte(`"`), []byte("\"\xff"), 2) })
		for _, p := range parameters(e.op) {
			for _, v := range []string{"", " ", "x", "a b", "Z%4D", "zm", "ZM", "%41", strings.Repeat("a", 256), strings.Repeat("a", 255), "ключ", "..", "pay_8f3a2c1d9b7e4a60 ", "v1,abc", "v1,a b", "123", "1795263300", "-1"} {
				name := fmt.Sprintf("%s %s = %q", p.In, p.Name, v)
				switch p.In {
				case "header":
					add(e, name, func(m *exchange) { m.header.Set(p.Name, v) })
					add(e, name+" as a second value", func(m *exchange) { m.header.Add(p.Name, v) })
					add(e, name+" under a lower-case key", func(m *exchange) { m.header[strings.ToLower(p.Name)] = []string{v} })
				case "path", "query":
					old := paramExample(p)
					if old == "" {
						continue
					}
					if p.In == "query" {
						old = p.Name + "=" + old
						v = p.Name + "=" + v
					}
					add(e, name, func(m *exchange) { m.url = strings.Replace(m.url, old, v, 1) })
				}
			}
			if ex := paramExample(p); p.In == "path" && strings.Contains(ex, "_") {
				add(e, "escaped unreserved character in the path", func(m *exchange) {
					m.url = strings.Replace(m.url, ex, strings.Replace(ex, "_", "%5F", 1), 1)
				})
			}
			if p.In == "query" {
				add(e, "query repeated", func(m *exchange) { m.url += "&" + p.Name + "=GH" })
				add(e, "query missing", func(m *exchange) { m.url = m.url[:strings.Index(m.url, "?")] })
				add(e, "escaped query key", func(m *exchange) {
					m.url = strings.Replace(m.url, "?"+p.Name[:1], "?%"+strconv.FormatInt(int64(p.Name[0]), 16), 1)
				})
			}
		}
		if !e.webhook {
			add(e, "unknown query parameter", func(m *exchange) {
				m.url += map[bool]string{true: "&", false: "?"}[strings.Contains(m.url, "?")] + "debug=1"
			})
			add(e, "trailing slash", func(m *exchange) { m.url += "/" })
			add(e, "double slash", func(m *exchange) { m.url = strings.Replace(m.url, "/v1/", "/v1//", 1) })
		}
	}
	var agreed, planNo int
	for _, c := range cases {
		plan, validator := verdicts(t, fast, full, c)
		if plan && !validator {
			t.Errorf("UNSOUND: the fast path accepts what the validator rejects: %s", c.name)
		}
		if plan == validator {
			agreed++
		} else {
			planNo++
			t.Log("left to the validator: " + c.name[strings.Index(c.name, ": ")+2:])
		}
	}
	t.Logf("%d variations: %d judged alike, %d valid ones left to the validator", len(cases), agreed, planNo)
	assert.Greater(t, agreed, len(cases)*9/10, "the fast path should decide most of these itself")
}

// mutations returns variants of a JSON document, each changing one thing.
func mutations(t testing.TB, body []byte) [][]byte {
	t.Helper()
	var doc any
	require.NoError(t, json.Unmarshal(body, &doc))
	var out [][]byte
	emit := func(v any) {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		out = append(out, data)
	}
	var walk func(v any, set func(any), del func())
	walk = func(v any, set func(any), del func()) {
		if del != nil {
			del()
		}
		replacements := []any{nil, true, "1", float64(0)}
		switch x := v.(type) {
		case string:
			replacements = append(replacements, "", x+"!", " "+x, strings.ToUpper(x), strings.ToLower(x),
				strings.Repeat("a", 2000), x[:len(x)/2], float64(len(x)))
		case float64:
			replacements = append(replacements, x+1, x-1, x+0.5, x*1e6, -x, x+0.001, 9007199254740992.0, 1e12+1)
		case bool:
			replacements = append(replacements, !x, "true")
		case map[string]any:
			replacements = append(replacements, []any{x}, map[string]any{})
			with := maps.Clone(x)
			with["unexpected_field"] = 1
			replacements = append(replacements, with)
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], func(nv any) { old := x[k]; x[k] = nv; set(x); x[k] = old },
					func() { old := x[k]; delete(x, k); set(x); x[k] = old })
			}
		case []any:
			replacements = append(replacements, []any{}, map[string]any{})
			if len(x) > 0 {
				replacements = append(replacements, append(slices.Clone(x), x[0]))
			}
			for i := range x {
				walk(x[i], func(nv any) { old := x[i]; x[i] = nv; set(x); x[i] = old }, nil)
			}
		}
		for _, r := range replacements {
			set(r)
		}
	}
	walk(doc, emit, nil)
	return out
}

// parallel runs f(0..n-1) on a few goroutines.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func TestMatchTemplate(t *testing.T) {
	for _, c := range []struct {
		template, path string
		want           bool
	}{
		{"/v1/payment/payouts/{payout_id}", "/v1/payment/payouts/po_1", true},
		{"/v1/payment/payouts/{payout_id}", "/v1/payment/payouts/po_1/", true},
		{"/v1/payment/payouts/{payout_id}", "/v1/payment/payouts/", false},
		{"/v1/payment/payouts/{payout_id}", "/v1/payment/payouts", false},
		{"/v1/payment/payouts/{payout_id}", "/v1/payment/payouts/po_1/x", false},
		{"/v1/payment/payouts/process", "/v1/payment/payouts/process", true},
		{"/v1/payment/payouts/process", "/v1/payment/payouts/processes", false},
		{"/v1/countries", "/v1/countries", true},
		{"/v1/countries", "/v1", false},
		{"/v1/countries", "/v2/countries", false},
	} {
		assert.Equal(t, c.want, matchTemplate(c.template, c.path), "%s vs %s", c.template, c.path)
	}
}

// FuzzFastPathIsSound feeds arbitrary bodies and content types to every operation's request, response
// and webhook checks: the fast path may never accept what the validator rejects.
func FuzzFastPathIsSound(f *testing.F) {
	fast, full := specs(f)
	exchanges := baseExchanges(f, fast)
	for i, e := range exchanges {
		f.Add(uint16(i), e.body, jsonMediaType, uint16(e.status))
	}
	f.Add(uint16(0), []byte(`{"amount":1.5}`), "application/json; charset=utf-8", uint16(201))
	f.Fuzz(func(t *testing.T, index uint16, body []byte, contentType string, status uint16) {
		e := exchanges[int(index)%len(exchanges)]
		e.body, e.header, e.respHead = body, e.header.Clone(), e.respHead.Clone()
		e.header.Set("Content-Type", contentType)
		if e.status != 0 {
			e.status = int(status)
			e.respHead = http.Header{"Content-Type": {contentType}}
		}
		if plan, validator := verdicts(t, fast, full, e); plan && !validator {
			t.Fatalf("UNSOUND: the fast path accepts what the validator rejects: %s with %q", e.name, body)
		}
	})
}

// FuzzFastPathIsSoundOnTheWire varies what is around the body too: a suffix to the URL (fragments,
// segments, queries) and the value of the header parameters and of an optional response header.
func FuzzFastPathIsSoundOnTheWire(f *testing.F) {
	fast, full := specs(f)
	exchanges := baseExchanges(f, fast)
	for i, e := range exchanges {
		f.Add(uint16(i), e.body, jsonMediaType, uint16(e.status), "", "")
	}
	f.Add(uint16(0), []byte(`{"amount":1.5}`), "application/json; charset=utf-8", uint16(201), "#x", "k")
	f.Add(uint16(3), []byte(`{}`), "application/json", uint16(200), "/../x?y=1", " ")
	f.Fuzz(func(t *testing.T, index uint16, body []byte, contentType string, status uint16, urlSuffix, headerValue string) {
		e := exchanges[int(index)%len(exchanges)]
		e.body, e.header, e.respHead = body, e.header.Clone(), e.respHead.Clone()
		e.header.Set("Content-Type", contentType)
		if _, err := url.Parse(e.url + urlSuffix); err == nil {
			e.url += urlSuffix
		}
		if headerValue != "" {
			for _, p := range OperationModel(e.op).Parameters {
				if p.In == "header" {
					e.header.Set(p.Name, headerValue)
				}
			}
		}
		if e.status != 0 {
			e.status = int(status)
			e.respHead.Set("Content-Type", contentType)
			if headerValue != "" {
				for _, name := range documentedHeaders(e.op, e.status) {
					e.respHead.Set(name, headerValue)
				}
			}
		}
		if plan, validator := verdicts(t, fast, full, e); plan && !validator {
			t.Fatalf("UNSOUND: the fast path accepts what the validator rejects: %s with %q at %s", e.name, body, e.url)
		}
	})
}

// TestUncoveredPartsFallBackToTheValidator loads a document with a keyword the checks do not implement:
// Load logs the gap, and the operation is validated by libopenapi-validator alone, with its verdicts.
func TestUncoveredPartsFallBackToTheValidator(t *testing.T) {
	doc := bytes.Replace(embeddedSpec, []byte("    PayoutAmount:\n      type: integer\n"),
		[]byte("    PayoutAmount:\n      if: {type: integer}\n      then: {maximum: 100}\n      type: integer\n"), 1)
	require.NotEqual(t, embeddedSpec, doc)
	var logs bytes.Buffer
	s, err := Load(doc, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "left to libopenapi-validator")
	assert.Contains(t, logs.String(), `keyword \"if\"`)
	op, ok := s.Operation("processPayout")
	require.True(t, ok)
	assert.Nil(t, op.fast.request, "the payout request is not covered")
	assert.NotNil(t, op.fast.responses["400"], "the rest of the operation still is")

	payout := func(amount string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/payment/payouts/process",
			strings.NewReader(`{"amount":`+amount+`,"countryId":"ctry_zm","transfer_to":"mobile_number"}`))
		require.NoError(t, err)
		r.Header = http.Header{"Content-Type": {jsonMediaType}, "Public-Key": {"pk"}, "Secret-Key": {"sk"}}
		return r
	}
	assert.Empty(t, s.ValidateRequest(payout("100")))
	vs := s.ValidateRequest(payout("101"))
	require.NotEmpty(t, vs, "the if/then bound, which only the validator knows, is enforced")
	assert.Equal(t, "/amount", vs[0].Pointer)
}
