package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

var verbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"}

// TestSecretKeyIsNeverPrinted formats the client with every verb, as a value, inside other values and
// through slog, and checks the secret key never shows.
func TestSecretKeyIsNeverPrinted(t *testing.T) {
	c, err := New(testBase, testPublicKey, testSecretKey)
	require.NoError(t, err)
	type holder struct {
		Exported   *Client
		unexported *Client
		Value      Client
	}
	values := []any{c, *c, holder{c, c, *c}, []*Client{c}, map[string]*Client{"c": c}}
	for _, v := range values {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, testSecretKey, "%s of %T", verb, v)
			assert.NotContains(t, out, fmt.Sprintf("%x", testSecretKey), "%s of %T", verb, v)
		}
	}
	assert.Equal(t, `client.Client{baseURL: "http://127.0.0.1:8080", publicKey: "pk_test_4f1c2a9e", secretKey: [redacted]}`, c.String())
	assert.Equal(t, c.String(), fmt.Sprintf("%#v", c))

	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "c", c, "held", holder{Exported: c})
	assert.NotContains(t, logs.String(), testSecretKey)
	assert.Contains(t, logs.String(), "[redacted]")

	noSecret, err := New(testBase, testPublicKey, "")
	require.NoError(t, err)
	assert.Contains(t, noSecret.String(), "secretKey: <none>")
	assert.Equal(t, "client.Client(nil)", (*Client)(nil).String())
}

// TestSecretKeyStaysOutOfLogsAndErrors runs calls that fail in every way through a debug logger,
// including a proxy that echoes the request headers in its error page, and checks neither the logs nor
// the errors contain the secret key, while the logs still describe each attempt.
func TestSecretKeyStaysOutOfLogsAndErrors(t *testing.T) {
	h := newHarness(t)
	h.allowOffContract(502, "a proxy that echoes the request it could not forward")
	echo := "<html>Bad gateway. Your request: POST " + api.OpProcessPayout().URL() + "\nsecret-key: " + testSecretKey + "\n</html>"
	h.mock(http.MethodPost, api.OpProcessPayout().URL()).ReplyError(connReset())
	h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(502).SetHeader("Content-Type", "text/html").BodyString(echo)
	h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(401).JSON(failure(api.CodeInvalidAPIKey,
		"The key "+testSecretKey+" is not valid.", `[{"field":"header.secret-key","reason":"`+testSecretKey+` is revoked"}]`))

	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := h.client(WithLogger(logger), WithRetryPolicy(RetryPolicy{MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	_, err := c.ProcessPayout(context.Background(), bankPayout())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), testSecretKey)
	assert.Contains(t, err.Error(), "The key [redacted] is not valid.; header.secret-key: [redacted] is revoked")

	// The 502 with the echo on its own.
	h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(502).SetHeader("Content-Type", "text/html").BodyString(echo)
	_, err = h.client(WithRetryPolicy(NoRetries())).ListCountries(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), testSecretKey)
	assert.Contains(t, err.Error(), "secret-key: [redacted]")

	out := logs.String()
	assert.NotContains(t, out, testSecretKey)
	assert.NotContains(t, out, testPublicKey, "headers are never logged")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var requests []string
	for _, l := range lines {
		if strings.Contains(l, `msg="malipo: request"`) {
			requests = append(requests, l)
		}
	}
	require.Len(t, requests, 3, out)
	for i, want := range []string{"status=0", "status=502", "status=401"} {
		assert.Contains(t, requests[i], "operation=processPayout method=POST path="+api.OpProcessPayout().URL())
		assert.Contains(t, requests[i], fmt.Sprintf("attempt=%d %s duration=", i+1, want))
	}
	assert.Contains(t, requests[0], "connection reset by peer")
	assert.Contains(t, out, `msg="malipo: retrying" operation=processPayout attempt=1 wait=`)
}

// TestWebhookSecretIsRedactedWhenPrinted checks a WebhookEndpointWithSecret never prints its secret,
// alone, by pointer or inside a slice, while the field stays readable for callers that store it.
func TestWebhookSecretIsRedactedWhenPrinted(t *testing.T) {
	expires := ts("2026-11-21T11:15:00Z")
	e := WebhookEndpointWithSecret{
		ID: "we_1", URL: "https://merchant.example.org/hooks", Events: []EventType{api.EventTypePayoutFailed},
		Enabled: true, CreatedAt: ts("2026-11-21T10:15:00Z"), UpdatedAt: ts("2026-11-21T10:15:00Z"),
		Secret:                  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		PreviousSecretExpiresAt: &expires,
	}
	for _, v := range []any{e, &e, []WebhookEndpointWithSecret{e}, []*WebhookEndpointWithSecret{&e}} {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "%s of %T", verb, v)
		}
	}
	assert.Equal(t, `{ID:we_1 URL:https://merchant.example.org/hooks Events:[payout.failed] Description:"" Enabled:true `+
		`Secret:[redacted] PreviousSecretExpiresAt:2026-11-21T11:15:00Z CreatedAt:2026-11-21T10:15:00Z UpdatedAt:2026-11-21T10:15:00Z}`, e.String())
	assert.Equal(t, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", e.Secret)
	described := e
	described.Description = ptr("Finance team")
	assert.Contains(t, described.String(), `Description:"Finance team" Enabled:true Secret:[redacted]`)
}

// A webhook secret of the caller's is checked before anything is sent, and the error says what is
// wrong without quoting it.
func TestSuppliedEndpointSecretIsCheckedBeforeSending(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	weak := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x9e}, 23))
	_, err := c.CreateWebhookEndpoint(context.Background(), WebhookEndpointCreateRequest{
		URL: "https://merchant.example.org/hooks", Events: []EventType{api.EventTypePayoutSuccess}, Secret: SecretString(weak)})
	var invalid *InvalidRequestError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "/secret", invalid.Errors[0].Field)
	assert.Contains(t, err.Error(), "decodes to 23 bytes")
	assert.NotContains(t, err.Error(), weak[6:20])
	_, err = c.RotateWebhookEndpointSecret(context.Background(), "we_1", RotateSecretRequest{Secret: "sk_live_not_a_webhook_secret"})
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "/secret", invalid.Errors[0].Field)
	assert.Contains(t, err.Error(), "does not start with whsec_")
	assert.NotContains(t, err.Error(), "not_a_webhook_secret")
	assert.Empty(t, h.requests(), "nothing is sent")
}

// A supplied secret is sent as given and comes back as the result's secret; an answer that echoes it
// (a 400 quoting the request, a proxy page) does not put it in the error or the logs.
func TestSuppliedEndpointSecretIsSentAndNeverEchoed(t *testing.T) {
	h := newHarness(t)
	secret := "whsec_65JvPhZ65V/KmuUQqzwjtfW5Qo7moBkeoNcP6q4hBNE="
	created := `{"id":"we_1","url":"https://merchant.example.org/hooks","events":["payout.success"],"enabled":true,` +
		`"secret":"` + secret + `","created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:00Z"}`
	h.mock(http.MethodPost, api.OpCreateWebhookEndpoint().URL()).Reply(201).JSON(success("Webhook endpoint created", created))
	h.mock(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL("we_1")).Reply(400).JSON(failure(api.CodeValidationFailed,
		"The request is invalid.", `[{"field":"/secret","reason":"'`+secret+`' is not accepted"}]`))
	h.allowOffContract(200, "a success the client cannot read, whose body the error quotes")
	h.mock(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL("we_1")).Reply(200).JSON(success("Webhook endpoint secret rotated",
		`{"secret":"`+strings.ReplaceAll(secret, "/", `\/`)+`","events":"payout.success"}`))

	var logs bytes.Buffer
	c := h.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))), WithRetryPolicy(NoRetries()))
	req := WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks", Events: []EventType{api.EventTypePayoutSuccess}, Secret: SecretString(secret)}
	got, err := c.CreateWebhookEndpoint(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, secret, got.Secret)
	require.Len(t, h.requests(), 1)
	assert.Contains(t, string(h.requests()[0].body), `"secret":"`+secret+`"`, "the secret is sent as given")

	_, err = c.RotateWebhookEndpointSecret(context.Background(), "we_1", RotateSecretRequest{Secret: SecretString(secret)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/secret: 'whsec_[redacted]' is not accepted")
	_, err = c.RotateWebhookEndpointSecret(context.Background(), "we_1", RotateSecretRequest{Secret: SecretString(secret)})
	require.Error(t, err, "a 200 whose events are not a list cannot be read")
	assert.Contains(t, err.Error(), "whsec_[redacted]", "the body quoted in the error has its secret redacted")
	for _, out := range []string{err.Error(), logs.String(), fmt.Sprintf("%+v %v %#v", req, req, req)} {
		assert.NotContains(t, out, "65JvPhZ65V")
	}
}

// An endpoint secret in a success body the client cannot decode (created_at is not a time) reaches the
// error only as whsec_[redacted], whether the body writes it JSON-escaped or URL-encoded.
func TestEndpointSecretInAnUnusableBodyIsRedacted(t *testing.T) {
	for _, written := range []string{`whsec_AAAA\/SECRETTAILxyz+0123456789abcdef==`, `whsec_AAAA\u002bSECRETTAILxyz\/0123456789abcdef==`, `whsec_AAAA%2FSECRETTAILxyz%2B0123456789abcdef%3D%3D`} {
		h := newHarness(t)
		if strings.Contains(written, "%") {
			h.allowOffContract(201, "a secret the server URL-encoded")
		}
		h.mock(http.MethodPost, api.OpCreateWebhookEndpoint().URL()).Reply(201).SetHeader("Content-Type", "application/json").
			BodyString(`{"status":"success","code":0,"message":"created","data":{"id":"we_1","url":"https://x.example/h","events":["payout.success"],"enabled":true,"secret":"` + written + `","created_at":"yesterday","updated_at":"yesterday"}}`)
		_, err := h.client(WithRetryPolicy(NoRetries())).CreateWebhookEndpoint(context.Background(),
			WebhookEndpointCreateRequest{URL: "https://x.example/h", Events: []EventType{api.EventTypePayoutSuccess}})
		require.Error(t, err, written)
		assert.NotContains(t, err.Error(), "SECRETTAIL", written)
		assert.Contains(t, err.Error(), "whsec_[redacted]", written)
	}
}
