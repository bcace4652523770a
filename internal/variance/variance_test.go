package variance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// TestDimensionsCiteTheDocument holds every citation to the embedded document: the pointer resolves
// and the quoted words are there. A dimension the document stops allowing fails here, not silently.
func TestDimensionsCiteTheDocument(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, d := range Dimensions() {
		assert.False(t, names[d.Name], "two dimensions are named %s", d.Name)
		names[d.Name] = true
		assert.NotEmpty(t, d.Varies, d.Name)
		require.NotEmpty(t, d.Allowed, "dimension %s cites nothing of the document", d.Name)
		for _, c := range d.Allowed {
			assert.NoError(t, spec.Says(c.Pointer, c.Quote), "dimension %s", d.Name)
		}
	}
}

// TestCitationCheckCanFail shows that a misquote or a wrong pointer is caught.
func TestCitationCheckCanFail(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	c := Dimensions()[0].Allowed[0]
	require.NoError(t, spec.Says(c.Pointer, c.Quote))
	assert.Error(t, spec.Says(c.Pointer, c.Quote+" Unless it is Tuesday."))
	assert.Error(t, spec.Says(c.Pointer+"x", c.Quote))
}

// TestLinesFollowDimensions: a variant prints one line per dimension, in Dimensions' order, each with
// what was drawn.
func TestLinesFollowDimensions(t *testing.T) {
	lines := Draw(7).Lines()
	dims := Dimensions()
	require.Len(t, lines, len(dims))
	for i, d := range dims {
		assert.True(t, strings.HasPrefix(lines[i], d.Name+": "), lines[i])
		assert.Greater(t, len(lines[i]), len(d.Name)+2, "dimension %s printed without a value", d.Name)
	}
}

// TestDrawCoversEveryDimensionBothWays: over the seeds the contract suite's variance test draws (1 to
// 24), every dimension takes at least two values, so that no choice is left at the sandbox's.
func TestDrawCoversEveryDimensionBothWays(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	firstRetryBound, err := spec.WebhookFirstRetryBound()
	require.NoError(t, err)
	seen := map[string]map[string]bool{}
	for seed := int64(1); seed <= 24; seed++ {
		v := Draw(seed)
		assert.Equal(t, v, Draw(seed), "a seed must always draw the same variant")
		for _, line := range v.Lines() {
			name, value, _ := strings.Cut(line, ": ")
			if seen[name] == nil {
				seen[name] = map[string]bool{}
			}
			seen[name][value] = true
		}
		lo, hi := minDelay, maxDelay
		if v.SlowSettlement {
			lo, hi = minSlowDelay, maxSlowDelay
			assert.GreaterOrEqual(t, v.Timings.Spread, minSlowSpread)
			assert.LessOrEqual(t, v.Timings.Spread, maxSlowSpread)
		} else {
			assert.Zero(t, v.Timings.Spread)
		}
		for _, d := range []time.Duration{v.Timings.PromptDelay, v.Timings.PayoutDelay} {
			assert.LessOrEqual(t, d, hi)
			assert.GreaterOrEqual(t, d, lo)
		}
		if v.Latency.Max > 0 {
			assert.GreaterOrEqual(t, v.Latency.Min, minLatency)
			assert.LessOrEqual(t, v.Latency.Min, v.Latency.Max)
			assert.LessOrEqual(t, v.Latency.Max, maxLatency)
		}
		require.GreaterOrEqual(t, len(v.RetrySchedule), 2)
		assert.LessOrEqual(t, v.RetrySchedule[0], firstRetryBound, "the document bounds the first retry")
		for i := 1; i < len(v.RetrySchedule); i++ {
			assert.Equal(t, 2*v.RetrySchedule[i-1], v.RetrySchedule[i], "exponential back-off")
		}
	}
	for _, d := range Dimensions() {
		assert.GreaterOrEqual(t, len(seen[d.Name]), 2, "dimension %s took one value over 24 seeds: %v", d.Name, seen[d.Name])
	}
}

// TestDocumentFields: the members read from the document are the ones the API has.
func TestDocumentFields(t *testing.T) {
	f, err := documentFields()
	require.NoError(t, err)
	for _, id := range []string{"id", "paymentReference", "payout_id", "countryId", "bank_id", "object_id", "endpoint_id", "event_id", "existing_id"} {
		assert.True(t, f.ids[id], "%s is an ObjectId in the document", id)
	}
	for _, at := range []string{"created_at", "updated_at", "previous_secret_expires_at", "started_at", "expires_at"} {
		assert.True(t, f.times[at], "%s is a Timestamp in the document", at)
	}
	assert.True(t, f.timeParams["created_after"])
	assert.True(t, f.timeParams["created_before"])
	assert.False(t, f.ids["reference"], "a merchant reference is the merchant's, never translated")
}

// TestIDFormatsStayWithinObjectID: every format Draw picks gives ids within the document's ObjectId
// (and cursors within EventCursor), distinct for distinct ids; the format Draw never picks does not.
func TestIDFormatsStayWithinObjectID(t *testing.T) {
	objectID := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
	cursor := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	formats := []IDFormat{IDAsSandbox, IDUUID, IDTagged, IDLong, IDNumeric, IDMixedCase, IDCoded}
	for _, f := range formats {
		v := Variant{Seed: 3, IDs: ObjectIDFormats{f, f, f, f, f}, ReferenceIDs: f, Cursors: CursorLong}
		tr := newTranslator(v)
		tr.addReference("ctry_zm", kindCountry, "ZM")
		tr.addReference("bank_zm_zanaco", kindBank, "ZM.ZANACO")
		names := map[string]bool{}
		for _, id := range []string{"pay_0123456789abcdef", "po_0123456789abcdef", "we_0123456789abcdef", "evt_0123456789abcdef",
			"df_0123456789abcdef", "po_0123456789abcdee", "ctry_zm", "bank_zm_zanaco"} {
			n := tr.out(id)
			assert.Regexp(t, objectID, n, "format %s", f)
			assert.LessOrEqual(t, len(n), 128, "format %s", f)
			assert.False(t, names[n], "format %s named two ids %s", f, n)
			names[n] = true
			back, ok := tr.in(n)
			if n != id {
				assert.True(t, ok, "format %s: %s is not translated back", f, n)
				assert.Equal(t, id, back)
			}
		}
		c := tr.outCursor("c_1z")
		assert.Regexp(t, cursor, c)
		assert.Len(t, c, 128)
	}
	tr := newTranslator(Variant{IDs: ObjectIDFormats{Payout: IDOutsidePattern}})
	assert.NotRegexp(t, objectID, tr.out("po_0123456789abcdef"))
}

// TestJSONKeepsNumbersAndValues: every style writes the same JSON value, numbers with their text
// unchanged, and the styles really differ in text.
func TestJSONKeepsNumbersAndValues(t *testing.T) {
	in := []byte(`{"amount":2188118558.01,"big":999999999999.99,"exp":1e2,"zero":150.50,"s":"caf\u00e9 <b> & https://x.example/a","n":null,"t":true,"a":[1,{"z":0,"y":[]}],"o":{}}`)
	texts := map[string]bool{}
	for _, style := range []JSONStyle{{}, {Order: OrderSorted, Indent: "\t", EscapeSlash: true}, {Order: OrderReversed, SpaceAfterColon: true, EscapeNonASCII: true, TrailingNewline: true},
		{Order: OrderShuffled, Indent: "  ", SpaceAfterColon: true}} {
		v, err := parseJSON(in)
		require.NoError(t, err)
		out := (&encoder{style: style, seed: 5}).encode(v)
		texts[string(out)] = true
		for _, number := range []string{"2188118558.01", "999999999999.99", "1e2", "150.50"} {
			assert.Contains(t, string(out), number, "number text changed in style %+v", style)
		}
		var a, b any
		require.NoError(t, json.Unmarshal(in, &a))
		require.NoError(t, json.Unmarshal(out, &b), "%s", out)
		assert.Equal(t, a, b, "style %+v changed the value", style)
	}
	assert.Len(t, texts, 4)
	_, err := parseJSON([]byte(`{"a":1} {"b":2}`))
	assert.Error(t, err, "data after the value is not one JSON body")
}

// TestTimes: date-times are the same instants on the variant's grid, and a time sent back is read on
// that grid.
func TestTimes(t *testing.T) {
	st := &state{v: Variant{Time: TimeStyle{Digits: 3, NumericOffset: true}}}
	got, ok := st.timeOut("2026-11-21T10:15:00.123456789Z")
	require.True(t, ok)
	assert.Equal(t, "2026-11-21T10:15:00.123+00:00", got)
	got, _ = st.timeOut("2026-11-21T10:15:00Z")
	assert.Equal(t, "2026-11-21T10:15:00.000+00:00", got)
	back, ok := st.timeIn("2026-11-21T10:15:00.123+00:00")
	require.True(t, ok)
	assert.Equal(t, "2026-11-21T10:15:00.123Z", back, "a time the variant wrote is read as itself")
	back, _ = st.timeIn("2026-11-21T10:15:00.1231Z")
	assert.Equal(t, "2026-11-21T10:15:00.124Z", back, "a finer time is the next instant the variant can write")
	_, ok = st.timeOut("order-1042")
	assert.False(t, ok)
}

// TestVariantSandbox serves a variant and reads it as a client does: every response valid against the
// document, ids in the variant's formats and accepted back in paths and bodies, webhooks in the
// variant's ids and signed, extensions left out answering 404.
func TestVariantSandbox(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	v := Draw(4)
	v.RateLimitEvery = 0
	v.IDs = ObjectIDFormats{Payment: IDTagged, Payout: IDUUID, Endpoint: IDLong, Event: IDNumeric, DeliveryFailure: IDMixedCase}
	v.ReferenceIDs, v.KeyInUse = IDCoded, true
	v.Time = TimeStyle{Digits: 6, NumericOffset: true}
	v.Response = ResponseHeaders{Extra: true, Charset: true, ReplayedFalse: true}
	v.Webhook = WebhookHeaders{Extra: true, Charset: true}
	v.JSON = JSONStyle{Order: OrderShuffled, Indent: "  ", EscapeSlash: true}
	v.WebhookEndpoints, v.EventLog = false, true
	v.References, v.Reworded, v.ErrorsReversed, v.ListsReversed, v.EventFields = IDTagged, true, true, true, true
	v.ReferenceSubset = false // the test reads Zambia
	v.Timings = sandbox.Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}

	hooks := make(chan *http.Request, 4)
	bodies := make(chan []byte, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hooks <- r
		bodies <- b
	}))
	defer receiver.Close()
	ts := serveVariant(t, v)

	do := func(method, path string, body any) (*http.Response, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, ts.URL+path, rd)
		require.NoError(t, err)
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		assert.Empty(t, spec.ValidateResponse(req, resp), "%s %s: %s", method, path, raw)
		var env map[string]any
		require.NoError(t, json.Unmarshal(raw, &env), "%s", raw)
		return resp, env
	}

	resp, countries := do(http.MethodGet, api.OpListCountries().URL(), nil)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
	list := countries["data"].([]any)
	zambia := list[len(list)-1].(map[string]any)
	assert.Equal(t, "country:ZM", zambia["id"], "listed last: the variant reverses the sandbox's order")
	assert.Equal(t, "OK.", countries["message"])

	_, banks := do(http.MethodGet, api.OpListBanks().URL()+"?country=ZM", nil)
	bank := banks["data"].([]any)[0].(map[string]any)["id"].(string)
	assert.Regexp(t, `^ZM\.[A-Z]+$`, bank)

	resp, created := do(http.MethodPost, api.OpProcessPayout().URL(), map[string]any{"amount": 2500, "countryId": "country:ZM",
		"transfer_to": "bank", "bank_id": bank, "account_number": "12345678", "webhook_url": receiver.URL + "/hooks"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", created)
	assert.Equal(t, "false", resp.Header.Get(api.HeaderIdempotentReplayed))
	payout := created["data"].(map[string]any)
	id := payout["payout_id"].(string)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
	assert.Equal(t, "country:ZM", payout["countryId"])
	assert.Equal(t, bank, payout["bank_id"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`, payout["created_at"])

	resp, hidden := do(http.MethodPost, api.OpProcessPayout().URL(), map[string]any{"amount": 1, "countryId": "ctry_zm", "transfer_to": "mobile_number"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "the sandbox's own country id is unknown to a variant that names countries otherwise: %v", hidden)

	_, read := do(http.MethodGet, api.OpGetPayout().URL(id), nil)
	assert.Equal(t, id, read["data"].(map[string]any)["payout_id"])

	select {
	case r := <-hooks:
		body := <-bodies
		assert.Empty(t, spec.ValidateWebhook(string(api.EventTypePayoutSuccess), r.Header, body), "%s", body)
		assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
		assert.NotEmpty(t, r.Header.Get("X-Request-Id"))
		var event struct {
			ID   string `json:"id"`
			Data struct {
				Object map[string]any `json:"object"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(body, &event))
		assert.Regexp(t, `^\d{19}$`, event.ID)
		assert.Equal(t, event.ID, r.Header.Get(webhook.HeaderID))
		assert.Equal(t, id, event.Data.Object["payout_id"])
		assert.Equal(t, bank, event.Data.Object["bank_id"])
		assert.Contains(t, string(body), `:\/\/`, "the style's escaped slashes")
		assert.Contains(t, string(body), `"livemode"`, "a field the document does not declare")
		assert.Equal(t, "api", event.Data.Object["channel"])
		secret, err := webhook.ParseSecret(webhook.MerchantSigningSecret(sandbox.DefaultSecretKey))
		require.NoError(t, err)
		assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{secret}}.Verify(r.Header, body))

		_, got := do(http.MethodGet, api.OpGetEvent().URL(event.ID), nil)
		assert.Equal(t, event.ID, got["data"].(map[string]any)["id"])
		var delivered any
		require.NoError(t, json.Unmarshal(body, &delivered))
		assert.Equal(t, delivered, got["data"].(map[string]any)["payload"], "the payload is the delivered body")
		_, list := do(http.MethodGet, api.OpListEvents().URL()+"?object_id="+id, nil)
		assert.Len(t, list["data"].(map[string]any)["items"], 1)
	case <-time.After(5 * time.Second):
		t.Fatal("no webhook for the payout")
	}

	resp, init := do(http.MethodPost, api.OpInitializePayment().URL(), map[string]any{"currency": "ZMW", "country": "ZM", "narration": "Order 1",
		"method": "mobilemoney", "amount": 2188118558.01, "webhook_url": receiver.URL + "/payments"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", init)
	ref := init["data"].(map[string]any)["reference"].(string)
	assert.Regexp(t, `^REF:2026\.[A-Z2-7]{16}$`, ref, "the reference the service generated, in the variant's format")
	_, status := do(http.MethodGet, api.OpGetTransactionStatus().URL(ref), nil)
	assert.Equal(t, ref, status["data"].(map[string]any)["reference"])
	resp, taken := do(http.MethodPost, api.OpInitializePayment().URL(), map[string]any{"currency": "ZMW", "country": "ZM", "narration": "Order 1",
		"method": "mobilemoney", "amount": 1, "reference": ref, "webhook_url": receiver.URL + "/payments"})
	assert.Equal(t, http.StatusConflict, resp.StatusCode, "the generated reference, sent back, is the one taken")
	assert.NotContains(t, taken["message"], "ref_", "messages name references as the client knows them")

	resp, invalid := do(http.MethodPost, api.OpProcessPayout().URL(), map[string]any{"amount": 0, "countryId": "country:ZM", "transfer_to": "bank", "account_number": "12345678"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	errs := invalid["errors"].([]any)
	require.Len(t, errs, 2)
	assert.Equal(t, "/bank_id", errs[0].(map[string]any)["field"], "field errors in the reverse of the sandbox's order")
	assert.True(t, strings.HasPrefix(errs[0].(map[string]any)["reason"].(string), "not accepted: "))

	resp, absent := do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.EqualValues(t, api.CodeNotFound, absent["code"])
	resp, _ = do(http.MethodGet, api.OpGetPayout().URL("po_0123456789abcdef"), nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "an id the variant never gave out stays unknown")
}

// TestVariantDeliveriesAndKeys: a variant's deliveries come out of order and twice as drawn, and a
// retry while the first request with its key runs gets 409 idempotency_key_in_use; the sandbox's own
// behaviour (in order, once, the retry waits) is what the variant replaces.
func TestVariantDeliveriesAndKeys(t *testing.T) {
	v := Draw(1)
	v.RateLimitEvery = 0
	v.FinalEventFirst, v.HoldPastPrompt, v.LostAcks, v.KeyInUse = true, 150*time.Millisecond, true, true
	v.Timings = sandbox.Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}
	v.RetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond}
	v.Response.ConnectionClose = true
	v.ReferenceIDs = IDAsSandbox // the payouts below name the sandbox's country id

	got := make(chan hookDelivery, 64)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var event struct {
			Type string `json:"type"`
			Data struct {
				Object struct {
					PaymentReference string `json:"paymentReference"`
				} `json:"object"`
			} `json:"data"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &event)
		got <- hookDelivery{r.Header.Get(webhook.HeaderID), event.Type, event.Data.Object.PaymentReference}
	}))
	defer receiver.Close()
	srv, ts := serveVariantSandbox(t, v)
	claimed := make(chan struct{}, 1)
	defer onClaim(func() {
		select {
		case claimed <- struct{}{}:
		default:
		}
	})()
	// send may run on another goroutine than the test's, so it reports a failure instead of stopping.
	send := func(op api.Operation, path string, body string, header http.Header) (*http.Response, map[string]any) {
		req, err := http.NewRequest(op.Method, ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Errorf("build %s %s: %v", op.Method, path, err)
			return &http.Response{}, nil
		}
		req.Header = header.Clone()
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", op.Method, path, err)
			return &http.Response{}, nil
		}
		defer resp.Body.Close()
		var env map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&env)
		return resp, env
	}

	// Six payments: each one's events, and with lost acknowledgements some delivered twice (each of the
	// twelve events loses its first acknowledgement with even odds: none does once in 4096 runs).
	var refs []string
	for range 6 {
		init := api.OpInitializePayment()
		resp, env := send(init, init.URL(), `{"currency":"ZMW","country":"ZM","narration":"n","method":"mobilemoney","amount":1,"phone_number":"260900000000","webhook_url":"`+receiver.URL+`"}`, http.Header{})
		require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", env)
		assert.True(t, resp.Close, "Connection: close")
		ref := env["data"].(map[string]any)["paymentReference"].(string)
		refs = append(refs, ref)
		complete := api.OpCompletePayment()
		resp, env = send(complete, complete.URL(ref), "", http.Header{})
		require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", env)
	}
	byObject := map[string][]hookDelivery{}
	times := map[string]int{}
	deadline := time.After(5 * time.Second)
	for !bothEvents(byObject, refs) {
		select {
		case d := <-got:
			byObject[d.object] = append(byObject[d.object], d)
			times[d.id]++
		case <-deadline:
			t.Fatalf("deliveries so far: %v", byObject)
		}
	}
	// The retries of lost acknowledgements: the receiver has had every delivery once nothing is left to
	// send (a delivery is handed over before it is acknowledged).
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	for len(got) > 0 {
		d := <-got
		byObject[d.object] = append(byObject[d.object], d)
		times[d.id]++
	}
	twice := 0
	for _, ref := range refs {
		ds := byObject[ref]
		assert.Equal(t, string(api.EventTypePaymentSuccess), ds[0].typ, "payment %s: the final event first, then processing: %v", ref, ds)
	}
	for _, n := range times {
		if n > 1 {
			twice++
		}
	}
	assert.Positive(t, twice, "some event delivered again with its webhook-id: %v", times)

	// A retry while the first request with its key is still running (held 300 ms by the sandbox's slow
	// scenario) is told the key is in use; after it, the retry is a replay.
	payout := api.OpProcessPayout()
	body := `{"amount":5,"countryId":"ctry_zm","transfer_to":"mobile_number"}`
	key := http.Header{api.HeaderIdempotencyKey: {"variance-key-1"}}
	first := make(chan *http.Response, 1)
	slow := key.Clone()
	slow.Set(api.HeaderSandboxScenario, string(api.ScenarioSlow)+"; delay_ms=300")
	go func() {
		resp, _ := send(payout, payout.URL(), body, slow)
		first <- resp
	}()
	select { // the first request holds its key
	case <-claimed:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request with the key never claimed it")
	}
	resp, env := send(payout, payout.URL(), body, key)
	assert.Equal(t, api.CodeIdempotencyKeyInUse.HTTPStatus(), resp.StatusCode, "%v", env)
	assert.EqualValues(t, api.CodeIdempotencyKeyInUse, env["code"])
	assert.Equal(t, http.StatusCreated, (<-first).StatusCode)
	resp, _ = send(payout, payout.URL(), body, key)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "true", resp.Header.Get(api.HeaderIdempotentReplayed))
}

// hookDelivery is one webhook delivery: its webhook-id, type and payment.
type hookDelivery struct{ id, typ, object string }

// bothEvents reports whether every payment has had a payment.processing and a final event delivered.
func bothEvents(byObject map[string][]hookDelivery, refs []string) bool {
	for _, ref := range refs {
		types := map[string]bool{}
		for _, d := range byObject[ref] {
			types[d.typ] = true
		}
		if len(types) < 2 {
			return false
		}
	}
	return true
}

// TestREADMEListsEveryDimension: the table of allowed variants in docs/conform.md (the suite's page,
// linked from the README) has a row for every dimension, so that a dimension added here is documented
// where people read about the suite.
func TestREADMEListsEveryDimension(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "conform.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(readme), "\n## Allowed variants")
	require.True(t, found, "docs/conform.md has no section \"## Allowed variants\"")
	front, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(front), "](docs/conform.md)", "README.md links the suite's page")
	section, _, _ = strings.Cut(section, "\n## ")
	var missing []string
	for _, d := range Dimensions() {
		_, row, found := strings.Cut(section, "| `"+d.Name+"` |")
		if !found {
			missing = append(missing, d.Name+": no row")
			continue
		}
		row, _, _ = strings.Cut(row, "\n")
		for _, c := range d.Allowed {
			if !strings.Contains(row, "`"+c.Pointer+"`") {
				missing = append(missing, d.Name+": does not cite "+c.Pointer)
			}
		}
	}
	assert.Empty(t, missing, "docs/conform.md's table of allowed variants, under \"## Allowed variants\"")
}

// TestReferenceSubset: a variant that supports only some countries and banks lists only those, keeps
// a country with a bank, and treats the others as unknown: their banks' listing is 400 naming
// query.country, a payout naming them 400 naming the field.
func TestReferenceSubset(t *testing.T) {
	v := Draw(1)
	v.RateLimitEvery = 0
	v.ReferenceSubset, v.ReferenceIDs, v.ListsReversed = true, IDAsSandbox, false
	v.WebhookEndpoints, v.EventLog = true, true
	srv, err := sandbox.New(sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey))
	require.NoError(t, err)
	defer func() { _ = srv.Close() }()
	var st *state
	var handler http.Handler
	for seed := int64(1); ; seed++ {
		require.Less(t, seed, int64(50), "no seed below 50 leaves a country out")
		v.Seed = seed
		st = newState(v)
		if handler = st.middleware(srv, srv); len(st.leftOutCodes) > 0 {
			break
		}
	}
	ts := httptest.NewServer(handler)
	defer ts.Close()
	get := func(path string) (int, map[string]any) {
		req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var env map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		return resp.StatusCode, env
	}
	_, list := get(api.OpListCountries().URL())
	listed := map[string]bool{}
	banks := 0
	for _, c := range list["data"].([]any) {
		code := c.(map[string]any)["country_code"].(string)
		listed[code] = true
		status, env := get(api.OpListBanks().URL() + "?country=" + code)
		require.Equal(t, http.StatusOK, status)
		for _, b := range env["data"].([]any) {
			assert.False(t, st.leftOutRef[b.(map[string]any)["id"].(string)], "a bank left out is listed")
			banks++
		}
	}
	assert.Positive(t, banks, "a country with a bank is kept for the bank test values")
	var leftOut sandbox.Country
	for _, c := range srv.Countries() {
		assert.Equal(t, !st.leftOutCodes[c.CountryCode], listed[c.CountryCode], "%s listed as supported", c.CountryCode)
		if st.leftOutCodes[c.CountryCode] {
			leftOut = c
		}
	}
	status, env := get(api.OpListBanks().URL() + "?country=" + leftOut.CountryCode)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "query.country", env["errors"].([]any)[0].(map[string]any)["field"])
	anonymous, err := http.Get(ts.URL + api.OpListBanks().URL() + "?country=" + leftOut.CountryCode)
	require.NoError(t, err)
	_ = anonymous.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, anonymous.StatusCode, "keys are checked first, whatever the query names")

	req, err := http.NewRequest(http.MethodPost, ts.URL+api.OpProcessPayout().URL(),
		strings.NewReader(`{"amount":1,"countryId":"`+leftOut.ID+`","transfer_to":"mobile_number"}`))
	require.NoError(t, err)
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%v", env)
	assert.Equal(t, "/countryId", env["errors"].([]any)[0].(map[string]any)["field"])
}

// TestEventPageCap: a page holds at most the variant's cap, the cursor leads on to the rest, and a
// limit the document does not allow is still refused.
func TestEventPageCap(t *testing.T) {
	v := Draw(2)
	v.RateLimitEvery = 0
	v.EventPageCap, v.EventLog, v.FinalEventFirst, v.LostAcks = 1, true, false, false
	v.Timings = sandbox.Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer receiver.Close()
	ts := serveVariant(t, v)
	call := func(op api.Operation, path, body string) (int, map[string]any) {
		req, err := http.NewRequest(op.Method, ts.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var env map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		return resp.StatusCode, env
	}
	status, init := call(api.OpInitializePayment(), api.OpInitializePayment().URL(),
		`{"currency":"ZMW","country":"ZM","narration":"n","method":"mobilemoney","amount":1,"phone_number":"260900000000","webhook_url":"`+receiver.URL+`"}`)
	require.Equal(t, http.StatusCreated, status, "%v", init)
	ref := init["data"].(map[string]any)["paymentReference"].(string)
	status, _ = call(api.OpCompletePayment(), api.OpCompletePayment().URL(ref), "")
	require.Equal(t, http.StatusAccepted, status)

	list := api.OpListEvents().URL() + "?object_id=" + url.QueryEscape(ref)
	var seen []any
	require.Eventually(t, func() bool {
		seen = nil
		page := list
		for range 5 {
			_, env := call(api.OpListEvents(), page, "")
			data := env["data"].(map[string]any)
			items := data["items"].([]any)
			assert.LessOrEqual(t, len(items), 1, "a page holds at most the cap")
			seen = append(seen, items...)
			if data["has_more"] != true {
				break
			}
			page = list + "&cursor=" + url.QueryEscape(data["next_cursor"].(string))
		}
		return len(seen) == 2
	}, 5*time.Second, 10*time.Millisecond, "both events of the payment, one page each")

	status, _ = call(api.OpListEvents(), list+"&limit=1000", "")
	assert.Equal(t, http.StatusBadRequest, status, "a limit above the document's maximum is still refused")
}

// TestRateLimit: every so many requests over the network get the document's 429, with Retry-After,
// and nothing is done; the others are served; every answer carries the RateLimit fields.
func TestRateLimit(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	v := Draw(3)
	v.RateLimitEvery, v.NoRateLimitFields = 3, false
	ts := serveVariant(t, v)
	var statuses []int
	for range 6 {
		req, err := http.NewRequest(http.MethodGet, ts.URL+api.OpListCountries().URL(), nil)
		require.NoError(t, err)
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		assert.Empty(t, spec.ValidateResponse(req, resp), "%s", raw)
		if resp.StatusCode == http.StatusTooManyRequests {
			assert.Equal(t, "1", resp.Header.Get(api.HeaderRetryAfter))
		}
		for _, h := range api.RateLimitFields() {
			assert.NotEmpty(t, resp.Header.Get(h), "%d: a rate-limiting implementation sends %s on every answer to accepted keys", resp.StatusCode, h)
		}
		statuses = append(statuses, resp.StatusCode)
	}
	ok, limited := http.StatusOK, http.StatusTooManyRequests
	assert.Equal(t, []int{ok, ok, limited, ok, ok, limited}, statuses)
}

// TestEndpointSecrets: a secret the variant generates has its size, is what the response shows and
// what deliveries sign with, through a rotation; a secret the caller supplies is used as given.
func TestEndpointSecrets(t *testing.T) {
	v := Draw(5)
	v.RateLimitEvery, v.WebhookEndpoints, v.SecretBytes, v.LostAcks, v.FinalEventFirst = 0, true, 48, false, false
	v.ReferenceIDs, v.ReferenceSubset = IDAsSandbox, false // the payouts name the sandbox's Zambia
	v.Timings = sandbox.Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}
	receiver, got := collectDeliveries(t, 16)
	ts := serveVariant(t, v)
	call := func(op api.Operation, path string, body any) map[string]any {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		req, err := http.NewRequest(op.Method, ts.URL+path, bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var env map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		require.Less(t, resp.StatusCode, 300, "%s %s: %v", op.Method, path, env)
		return env["data"].(map[string]any)
	}
	verifies := func(secrets ...string) {
		t.Helper()
		var parsed []webhook.Secret
		for _, s := range secrets {
			p, err := webhook.ParseSecret(s)
			require.NoError(t, err)
			parsed = append(parsed, p)
		}
		call(api.OpProcessPayout(), api.OpProcessPayout().URL(), map[string]any{"amount": 1, "countryId": "ctry_zm", "transfer_to": "mobile_number"})
		select {
		case h := <-got:
			for _, p := range parsed {
				assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{p}}.Verify(h.header, h.body))
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no delivery to the endpoint")
		}
	}
	created := call(api.OpCreateWebhookEndpoint(), api.OpCreateWebhookEndpoint().URL(), map[string]any{"url": receiver.URL, "events": []string{string(api.EventTypePayoutSuccess)}})
	generated := created["secret"].(string)
	_, err := webhook.ParseEndpointSecret(generated)
	require.NoError(t, err)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(generated, "whsec_"))
	require.NoError(t, err)
	assert.Len(t, key, 48)
	verifies(generated)

	rotated := call(api.OpRotateWebhookEndpointSecret(), api.OpRotateWebhookEndpointSecret().URL(created["id"].(string)), map[string]any{"grace_period_seconds": 60})
	assert.NotEqual(t, generated, rotated["secret"])
	verifies(rotated["secret"].(string), generated)

	own, err := webhook.NewSecret()
	require.NoError(t, err)
	supplied := call(api.OpRotateWebhookEndpointSecret(), api.OpRotateWebhookEndpointSecret().URL(created["id"].(string)), map[string]any{"secret": own.Reveal(), "grace_period_seconds": 0})
	assert.Equal(t, own.Reveal(), supplied["secret"], "a secret the caller supplies is used as given")
	verifies(own.Reveal())
}

// TestNewEventTypes: a variant that adds event types delivers one about a created payout to its
// webhook_url, signed with the merchant's key like the others, besides the declared events.
func TestNewEventTypes(t *testing.T) {
	v := Draw(6)
	v.RateLimitEvery, v.EventLog, v.NewEventTypes, v.LostAcks = 0, false, true, false
	v.ReferenceIDs, v.ReferenceSubset = IDAsSandbox, false // the payout names the sandbox's Zambia
	v.Timings = sandbox.Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}
	receiver, got := collectDeliveries(t, 8)
	ts := serveVariant(t, v)
	req, err := http.NewRequest(http.MethodPost, ts.URL+api.OpProcessPayout().URL(),
		strings.NewReader(`{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number","webhook_url":"`+receiver.URL+`"}`))
	require.NoError(t, err)
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	secret, err := webhook.ParseSecret(webhook.MerchantSigningSecret(sandbox.DefaultSecretKey))
	require.NoError(t, err)
	types := map[string]bool{}
	for len(types) < 2 {
		select {
		case h := <-got:
			var event struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			}
			require.NoError(t, json.Unmarshal(h.body, &event))
			types[event.Type] = true
			assert.Equal(t, event.ID, h.header.Get(webhook.HeaderID))
			assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{secret}}.Verify(h.header, h.body), "%s", event.Type)
		case <-time.After(5 * time.Second):
			t.Fatalf("deliveries so far: %v", types)
		}
	}
	assert.Equal(t, map[string]bool{"payout.created": true, string(api.EventTypePayoutSuccess): true}, types)
}

// serveVariant serves the sandbox, with the default merchant, as variant v draws it, until the test ends.
func serveVariant(t *testing.T, v Variant) *httptest.Server {
	t.Helper()
	_, ts := serveVariantSandbox(t, v)
	return ts
}

// onClaim makes f hear of every Idempotency-Key a variant claims, until the returned restore.
func onClaim(f func()) (restore func()) {
	claimHook.Store(&f)
	return func() { claimHook.Store(nil) }
}

// serveVariantSandbox is serveVariant with the sandbox behind it, for a test that waits until it is idle.
func serveVariantSandbox(t *testing.T, v Variant) (*sandbox.Server, *httptest.Server) {
	t.Helper()
	srv, err := sandbox.New(append([]sandbox.Option{sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey)}, v.Options()...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

// received is one webhook delivery as a receiver saw it.
type received struct {
	header http.Header
	body   []byte
}

// collectDeliveries starts a webhook receiver that acknowledges every delivery and hands it over on
// the channel (buffered for n), until the test ends.
func collectDeliveries(t *testing.T, n int) (*httptest.Server, chan received) {
	t.Helper()
	got := make(chan received, n)
	receiver := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
	}))
	t.Cleanup(receiver.Close)
	return receiver, got
}
