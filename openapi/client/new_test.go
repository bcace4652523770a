package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func TestNewRejectsUnusableConfiguration(t *testing.T) {
	cases := []struct {
		name      string
		base      string
		public    string
		secret    string
		opts      []Option
		wantErr   string // fragment; empty means New succeeds
		notInText string
	}{
		{name: "valid", base: "https://api.example.org", public: "pk", secret: "sk"},
		{name: "valid without secret key", base: "http://127.0.0.1:8080/", public: "pk"},
		{name: "no scheme", base: "127.0.0.1:8080", public: "pk", wantErr: "is not an absolute http or https URL"},
		{name: "ftp", base: "ftp://example.org", public: "pk", wantErr: "is not an absolute http or https URL"},
		{name: "empty", base: "", public: "pk", wantErr: "is not an absolute http or https URL"},
		{name: "query", base: "https://api.example.org?x=1", public: "pk", wantErr: "must not have credentials, a query or a fragment"},
		{name: "credentials are not echoed", base: "https://user:hunter2@api.example.org", public: "pk",
			wantErr: "must not have credentials", notInText: "hunter2"},
		{name: "no public key", base: testBase, wantErr: "the public key is empty; pass the merchant's public key (e.g. from MALIPO_PUBLIC_KEY)"},
		{name: "secret key with a newline", base: testBase, public: "pk", secret: "sk_live_abc\n",
			wantErr: "the secret key has leading or trailing white space", notInText: "sk_live_abc"},
		{name: "secret key with a control character", base: testBase, public: "pk", secret: "sk_live\x00abc",
			wantErr: "the secret key contains a control character", notInText: "sk_live"},
		{name: "nil http client", base: testBase, public: "pk", opts: []Option{WithHTTPClient(nil)}, wantErr: "WithHTTPClient: the *http.Client is nil"},
		{name: "zero attempts", base: testBase, public: "pk", opts: []Option{WithRetryPolicy(RetryPolicy{})},
			wantErr: "WithRetryPolicy: retry policy: MaxAttempts is 0; use at least 1"},
		{name: "max below min", base: testBase, public: "pk",
			opts:    []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 2, MinBackoff: time.Second, MaxBackoff: time.Millisecond})},
			wantErr: "MaxBackoff 1ms is less than MinBackoff 1s"},
		{name: "negative timeout", base: testBase, public: "pk", opts: []Option{WithRequestTimeout(-time.Second)}, wantErr: "WithRequestTimeout: -1s is negative"},
		{name: "empty user agent", base: testBase, public: "pk", opts: []Option{WithUserAgent(" ")}, wantErr: "WithUserAgent"},
		{name: "nil logger", base: testBase, public: "pk", opts: []Option{WithLogger(nil)}, wantErr: "WithLogger"},
		{name: "every problem is reported", base: testBase, public: "pk", opts: []Option{WithLogger(nil), WithRequestTimeout(-1)},
			wantErr: "WithLogger: the logger is nil; leave the option out to discard logs; WithRequestTimeout"},
		{name: "nil options are ignored", base: testBase, public: "pk", opts: []Option{nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.base, tc.public, tc.secret, tc.opts...)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.NotNil(t, c)
				return
			}
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tc.wantErr)
			if tc.notInText != "" {
				assert.NotContains(t, err.Error(), tc.notInText)
			}
		})
	}
}

// TestURLs checks request URLs under a base URL with a path prefix and with a query.
func TestURLs(t *testing.T) {
	c, err := New("https://api.example.org/malipo/", "pk", "sk")
	require.NoError(t, err)
	const prefix = "https://api.example.org/malipo"
	assert.Equal(t, prefix+api.OpGetPayout().URL("po_1"), c.url(api.OpGetPayout(), []string{"po_1"}, nil))
	assert.Equal(t, prefix+api.OpGetTransactionStatus().URL("a:b.c-d_e"),
		c.url(api.OpGetTransactionStatus(), []string{"a:b.c-d_e"}, nil))
	assert.Equal(t, prefix+api.OpListBanks().URL()+"?country=ZM", c.url(api.OpListBanks(), nil, url.Values{"country": {"ZM"}}))
	assert.Equal(t, prefix+api.OpRotateWebhookEndpointSecret().URL("we_1"), c.url(api.OpRotateWebhookEndpointSecret(), []string{"we_1"}, nil))
	assert.Contains(t, c.url(api.OpGetTransactionStatus(), []string{"a:b.c-d_e"}, nil), "/a:b.c-d_e/",
		"the characters an id may have are sent unescaped")
}

// TestOptionsAreApplied checks the user agent and the caller's http.Client (its transport) are used,
// and that the caller's client is not modified.
func TestOptionsAreApplied(t *testing.T) {
	var seen *http.Request
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = r
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(success("Countries retrieved", "[]"))), Request: r}, nil
	})}
	c, err := New(testBase, testPublicKey, testSecretKey, WithHTTPClient(hc), WithUserAgent("terraform-provider-malipo/1.2.3"),
		WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	_, err = c.ListCountries(context.Background())
	require.NoError(t, err)
	require.NotNil(t, seen)
	assert.Equal(t, "terraform-provider-malipo/1.2.3", seen.Header.Get("User-Agent"))
	assert.Nil(t, hc.CheckRedirect, "the caller's client is copied, not changed")
}

func TestIdempotencyKeysAreRandomUUIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1024 {
		k := newIdempotencyKey()
		assert.Regexp(t, uuidV4, k)
		assert.False(t, seen[k])
		seen[k] = true
	}
}

// TestPayoutKindIsAlwaysSent checks that the body of a payout carries the kind its type stands for,
// whether the caller left TransferTo empty or set it to the same kind, without changing the caller's
// value, and that a kind that contradicts the type is refused.
func TestPayoutKindIsAlwaysSent(t *testing.T) {
	mobile := &MobilePayout{Amount: 1, CountryID: "c"}
	for _, tc := range []struct {
		in   PayoutRequest
		want string
	}{
		{BankPayout{}, `{"transfer_to":"bank","amount":0,"countryId":"","bank_id":"","account_number":""}`},
		{BankPayout{TransferTo: api.TransferToBank}, `{"transfer_to":"bank","amount":0,"countryId":"","bank_id":"","account_number":""}`},
		{mobile, `{"transfer_to":"mobile_number","amount":1,"countryId":"c"}`},
	} {
		body, _ := payoutBody(tc.in)
		b, err := json.Marshal(body)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(b))
	}
	assert.Empty(t, mobile.TransferTo, "the caller's request is not changed")

	for _, in := range []PayoutRequest{BankPayout{TransferTo: api.TransferToMobileNumber}, &MobilePayout{TransferTo: api.TransferToBank}} {
		_, v := payoutBody(in)
		require.NotEmpty(t, v.errs, "%#v", in)
		assert.Equal(t, "/transfer_to", v.errs[0].Field)
	}
}

// FuzzResponses feeds arbitrary statuses and bodies to the response handling: it must never panic,
// and every failure must be an error that names the operation.
func FuzzResponses(f *testing.F) {
	f.Add(200, []byte(success("ok", payoutProcessing)))
	f.Add(201, []byte(`{"status":"success","code":0,"data":null}`))
	f.Add(200, []byte(fmt.Sprintf(`{"status":"error","code":%d}`, api.CodeNotFound)))
	f.Add(404, []byte(failure(api.CodeNotFound, "no", `[{"field":"/a","reason":"b"}]`)))
	f.Add(409, []byte(fmt.Sprintf(`{"status":"error","code":%d,"message":"m","errors":null,"data":{"existing_id":7}}`, api.CodeDuplicateReference)))
	f.Add(502, []byte("<html>\xff\xfe"+strings.Repeat("é", 300)))
	f.Add(500, []byte(`[]`))
	f.Add(204, []byte(nil))
	c, err := New(testBase, testPublicKey, testSecretKey)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res := result{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}
		var err error
		if status >= 200 && status < 300 {
			var out Payout
			err = c.decode(api.OpGetPayout(), res, &out, &Meta{})
		} else {
			err = newAPIError(api.OpGetPayout().Words(), status, res.header, body, c.scrub)
		}
		if err == nil {
			return
		}
		assert.True(t, strings.HasPrefix(err.Error(), "malipo: get payout: "), err.Error())
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Code == 0 {
			assert.Less(t, len(apiErr.Message), 400, "a body that is not an envelope is quoted, not dumped")
		}
	})
}
