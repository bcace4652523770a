package dashboard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/dashboard"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

const (
	otherPublic = "pk_test_other_merchant"
	otherSecret = "sk_test_other_merchant_secret"
)

// start serves a sandbox with two merchants (nothing settles on its own) and its dashboard.
func start(t *testing.T) (*sandbox.Server, *httptest.Server) {
	t.Helper()
	srv, err := sandbox.New(
		sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey),
		sandbox.WithMerchant(otherPublic, otherSecret),
		sandbox.WithTimings(sandbox.Timings{PromptDelay: time.Hour, PayoutDelay: time.Hour}),
	)
	require.NoError(t, err)
	dash := dashboard.New(srv)
	ts := httptest.NewServer(dashboard.Mount(srv, dash))
	t.Cleanup(func() {
		dash.Close()
		ts.Close()
		_ = srv.Close()
	})
	return srv, ts
}

func get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// post sends a form to the dashboard as a browser would from origin (empty: as a non-browser client).
func post(t *testing.T, u string, form url.Values, origin, site string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if site != "" {
		req.Header.Set("Sec-Fetch-Site", site)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// The page shows the chosen merchant's objects and only theirs, lists the merchants' public keys and
// never a secret key, and allows itself nothing but its own origin.
func TestPageShowsOneMerchantWithoutSecrets(t *testing.T) {
	_, ts := start(t)
	id := createPayout(t, ts.URL, "https://merchant.example.org/hooks")

	resp, page := get(t, ts.URL+dashboard.Prefix)
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'self'")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self'")
	assert.NotContains(t, resp.Header.Get("Content-Security-Policy"), "unsafe-inline")
	assert.Contains(t, page, `data-payout="`+id+`"`)
	assert.Contains(t, page, otherPublic, "the selector lists every merchant")
	assert.NotContains(t, page, sandbox.DefaultSecretKey)
	assert.NotContains(t, page, otherSecret)
	assert.NotContains(t, page, "<script>", "no inline script: the only script is a file")

	_, other := get(t, ts.URL+dashboard.Prefix+"?public_key="+otherPublic)
	assert.NotContains(t, other, id, "another merchant's page does not show the payout")
	assert.NotContains(t, other, otherSecret)

	resp, msg := get(t, ts.URL+dashboard.Prefix+"?public_key=pk_nobody")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, msg, otherPublic, "an unknown key is answered with the keys there are")
	assert.NotContains(t, msg, otherSecret)
}

// The dashboard lives beside the API without changing it: API paths reach the sandbox, and the bare
// prefix redirects to the page.
func TestMountLeavesTheAPIAlone(t *testing.T) {
	_, ts := start(t)
	resp, body := get(t, ts.URL+api.OpListCountries().Path)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the API's own answer to a request without keys: %s", body)
	assert.Contains(t, body, `"code":`+fmt.Sprint(int(api.CodeMissingAPIKey)))
	resp, body = get(t, ts.URL+"/nowhere")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, body, `"status":"error"`, "an unknown path is the API's 404 envelope")

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noRedirect.Get(ts.URL + strings.TrimSuffix(dashboard.Prefix, "/"))
	require.NoError(t, err)
	_ = r.Body.Close()
	assert.Equal(t, http.StatusFound, r.StatusCode)
	assert.Equal(t, dashboard.Prefix, r.Header.Get("Location"))
}

// A page that points a name of its own at the sandbox (DNS rebinding) reaches nothing of the
// dashboard, not even its tables; by address or localhost the dashboard answers. The API is not
// concerned: clients name the sandbox as they like.
func TestDashboardAnswersOnlyToAddressesAndLocalhost(t *testing.T) {
	srv, ts := start(t)
	id := createPayout(t, ts.URL, "https://merchant.example.org/hooks")
	client := &http.Client{Timeout: 10 * time.Second} // an open live stream would otherwise hang the test
	get := func(host, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := client.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	for _, host := range []string{"rebind.evil.example:" + port, "rebind.evil.example", "localhost.evil.example:" + port, "127.0.0.1.evil.example"} {
		for _, path := range []string{dashboard.Prefix, dashboard.Prefix + "tables", dashboard.Prefix + "stream"} {
			resp := get(host, path)
			assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s %s", host, path)
			if resp.StatusCode != http.StatusForbidden {
				continue // the stream's body never ends
			}
			body, _ := io.ReadAll(resp.Body)
			assert.NotContains(t, string(body), id, "%s %s: nothing of the merchant's", host, path)
			assert.Contains(t, string(body), "http://127.0.0.1:PORT"+dashboard.Prefix, "the refusal says what to open instead")
		}
	}
	form := url.Values{"kind": {"payout"}, "id": {id}, "status": {"success"}}
	req, err := http.NewRequest(http.MethodPost, ts.URL+dashboard.Prefix+"settle", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Host = "rebind.evil.example:" + port
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://rebind.evil.example:"+port)
	req.Header.Set("Sec-Fetch-Site", "same-origin") // what the browser says after the rebinding
	resp, err := client.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	p, _ := srv.Payout(sandbox.DefaultPublicKey, id)
	assert.Equal(t, api.PayoutStatusProcessing, p.Status, "nothing happened")

	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "sandbox.localhost:" + port, "[::1]:" + port, "10.1.2.3:8080", "localhost."} {
		assert.Equal(t, http.StatusOK, get(host, dashboard.Prefix).StatusCode, host)
	}
	apiResp := get("rebind.evil.example:"+port, api.OpListCountries().URL())
	assert.NotEqual(t, http.StatusForbidden, apiResp.StatusCode, "the API answers whatever the Host")
}

// A button pressed on another site (CSRF) changes nothing; the same form from the page settles.
func TestActionsRefuseOtherSites(t *testing.T) {
	srv, ts := start(t)
	id := createPayout(t, ts.URL, "https://merchant.example.org/hooks")
	form := url.Values{"kind": {"payout"}, "id": {id}, "status": {"failed"}, "failure_reason": {string(api.FailureReasonAccountBlocked)}}
	settle := ts.URL + dashboard.Prefix + "settle"

	resp := post(t, settle, form, "https://evil.example", "cross-site")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp = post(t, settle, form, "https://evil.example", "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "an old browser: Origin alone")
	p, _ := srv.Payout(sandbox.DefaultPublicKey, id)
	assert.Equal(t, api.PayoutStatusProcessing, p.Status, "nothing happened")

	resp = post(t, settle, form, ts.URL, "same-origin")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	p, _ = srv.Payout(sandbox.DefaultPublicKey, id)
	assert.Equal(t, api.PayoutStatusFailed, p.Status)
	assert.Equal(t, api.FailureReasonAccountBlocked, p.FailureReason)

	// Settled is final: the API's refusal comes back as the action's answer.
	resp = post(t, settle, form, ts.URL, "same-origin")
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)

	// As the other merchant, the payout does not exist.
	other := url.Values{"public_key": {otherPublic}, "kind": {"payout"}, "id": {id}, "status": {"success"}}
	assert.Equal(t, http.StatusUnprocessableEntity, post(t, settle, other, ts.URL, "same-origin").StatusCode)
}

// Without the script, a form posts and the browser is sent back to the merchant's page.
func TestFormWithoutScriptComesBack(t *testing.T) {
	srv, ts := start(t)
	id := createPayout(t, ts.URL, "https://merchant.example.org/hooks")
	req, err := http.NewRequest(http.MethodPost, ts.URL+dashboard.Prefix+"settle",
		strings.NewReader(url.Values{"public_key": {sandbox.DefaultPublicKey}, "kind": {"payout"}, "id": {id}, "status": {"success"}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "./?public_key="+sandbox.DefaultPublicKey, resp.Header.Get("Location"))
	p, _ := srv.Payout(sandbox.DefaultPublicKey, id)
	assert.Equal(t, api.PayoutStatusSuccess, p.Status)
}

// The stream tells the page of a change of its merchant, and not of another merchant's.
func TestStreamReportsTheMerchantsChanges(t *testing.T) {
	_, ts := start(t)
	// The other merchant's payout, created before the stream opens.
	op := api.OpProcessPayout()
	create, err := http.NewRequest(op.Method, ts.URL+op.Path, strings.NewReader(`{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number"}`))
	require.NoError(t, err)
	create.Header.Set("Content-Type", "application/json")
	create.Header.Set(api.HeaderPublicKey, otherPublic)
	create.Header.Set(api.HeaderSecretKey, otherSecret)
	r, err := http.DefaultClient.Do(create)
	require.NoError(t, err)
	created, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	require.Equal(t, http.StatusCreated, r.StatusCode, "%s", created)
	otherID := strings.Split(strings.Split(string(created), `"payout_id":"`)[1], `"`)[0]

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+dashboard.Prefix+"stream", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() && lines.Text() != "" { // the greeting, up to its blank line
	}

	// The other merchant's settlement first (its event notice, then its request's): were it passed
	// on, the first data line would be an event. Then this merchant's payout: a request.
	settle := post(t, ts.URL+dashboard.Prefix+"settle", url.Values{"public_key": {otherPublic}, "kind": {"payout"}, "id": {otherID}, "status": {"success"}}, "", "")
	require.Equal(t, http.StatusOK, settle.StatusCode)
	id := createPayout(t, ts.URL, "https://merchant.example.org/hooks")

	require.True(t, lines.Scan(), "the stream ended: %v", lines.Err())
	assert.Equal(t, `data: {"kind":"request"}`, lines.Text())
	require.True(t, lines.Scan())
	assert.Empty(t, lines.Text())

	// The page then re-fetches the tables, which show the new payout.
	_, tables := get(t, ts.URL+dashboard.Prefix+"tables")
	assert.Contains(t, tables, `data-payout="`+id+`"`)
	assert.NotContains(t, tables, "<html", "a fragment, not a page")

	// Changes right after a message are held, not lost: one more message follows them.
	later := createPayout(t, ts.URL, "https://merchant.example.org/hooks")
	createPayout(t, ts.URL, "https://merchant.example.org/hooks")
	require.True(t, lines.Scan(), "the stream ended: %v", lines.Err())
	assert.Equal(t, `data: {"kind":"request"}`, lines.Text())
	_, tables = get(t, ts.URL+dashboard.Prefix+"tables")
	assert.Contains(t, tables, `data-payout="`+later+`"`)
}

// sentRequest is what a receiver got: the request an attempt's row must show.
type sentRequest struct {
	header http.Header
	body   []byte
}

// Each attempt shows its request: the body the receiver got, its webhook-id and webhook-timestamp,
// and no signature or secret (the endpoint's whsec_ secret and the merchant's secret key both sign).
func TestAttemptShowsItsRequestWithoutSecrets(t *testing.T) {
	_, ts := start(t)
	var mu sync.Mutex
	got := map[string]sentRequest{} // by path: the endpoint's or the payout's webhook_url
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = sentRequest{r.Header.Clone(), body}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hooks.Close)
	cl, err := client.New(ts.URL, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey)
	require.NoError(t, err)
	endpoint, err := cl.CreateWebhookEndpoint(context.Background(), client.WebhookEndpointCreateRequest{
		URL: hooks.URL + "/endpoint", Events: []api.EventType{api.EventTypePayoutSuccess}})
	require.NoError(t, err)
	id := createPayout(t, ts.URL, hooks.URL+"/own")
	settle := post(t, ts.URL+dashboard.Prefix+"settle", url.Values{"kind": {"payout"}, "id": {id}, "status": {"success"}}, ts.URL, "same-origin")
	require.Equal(t, http.StatusOK, settle.StatusCode)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 2
	}, 10*time.Second, 5*time.Millisecond)
	var tables string
	require.Eventually(t, func() bool { // both attempts recorded
		_, tables = get(t, ts.URL+dashboard.Prefix+"tables")
		return strings.Count(tables, `<tr class="attempt ok"`) == 2
	}, 10*time.Second, 5*time.Millisecond)
	text := html.UnescapeString(tables)
	for path, sent := range got {
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, sent.body, "", "  "))
		assert.Contains(t, text, "POST "+hooks.URL+path+"\n", path)
		assert.Contains(t, text, indented.String(), "%s: the body the receiver got", path)
		assert.Contains(t, text, webhook.HeaderID+": "+sent.header.Get(webhook.HeaderID)+"\n", path)
		sentAt, err := strconv.ParseInt(sent.header.Get(webhook.HeaderTimestamp), 10, 64)
		require.NoError(t, err)
		shown := regexp.MustCompile(regexp.QuoteMeta(webhook.HeaderTimestamp)+`: (\d+)\n`).FindAllStringSubmatch(text, -1)
		require.Len(t, shown, 2, "one timestamp per attempt")
		near := false
		for _, m := range shown {
			at, _ := strconv.ParseInt(m[1], 10, 64)
			near = near || (at-sentAt <= 1 && sentAt-at <= 1)
		}
		assert.True(t, near, "%s: the timestamp sent, %d, is shown (to the second it started): %v", path, sentAt, shown)
		for _, sig := range webhook.Signatures(sent.header.Get(webhook.HeaderSignature)) {
			_, mac, _ := strings.Cut(sig, ",")
			assert.NotContains(t, text, mac, "no signature is shown: the sandbox keeps none")
		}
	}
	assert.Contains(t, text, webhook.HeaderSignature+": v1,…")
	assert.NotContains(t, text, endpoint.Secret)
	assert.NotContains(t, text, "whsec_")
	assert.NotContains(t, text, sandbox.DefaultSecretKey)
}

// Money shows as the API counts it, two decimals whatever the size: an amount of ten digits and cents
// is not written in exponent form, and 150.5 is 150.50, as a payout's whole units are 120.00.
func TestAmountsShowTwoDecimals(t *testing.T) {
	_, ts := start(t)
	for _, amount := range []string{"2188118558.01", "150.5"} {
		create(t, ts.URL, api.OpInitializePayment(), fmt.Sprintf(`{"amount":%s,"currency":"ZMW","country":"ZM","method":"mobilemoney","narration":"n","webhook_url":"https://merchant.example.org/hooks"}`, amount))
	}
	createPayout(t, ts.URL, "https://merchant.example.org/hooks")

	_, page := get(t, ts.URL+dashboard.Prefix)
	assert.Contains(t, page, "2188118558.01 ZMW")
	assert.Contains(t, page, "150.50 ZMW")
	assert.Contains(t, page, "120.00 ZMW")
	assert.NotContains(t, page, "e+09")
}
