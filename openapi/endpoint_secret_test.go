package openapi_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The document's EndpointSecret (what create and rotate-secret accept as `secret`) and
// webhook.ParseEndpointSecret (what the sandbox, the client and the provider check) say the same
// thing: exactly whsec_ and the padded base64 of webhook.MinSecretBytes to MaxSecretBytes bytes.
func TestEndpointSecretSchemaIsTheParser(t *testing.T) {
	var s struct {
		MinLength       *int64 `yaml:"minLength"`
		MaxLength       *int64 `yaml:"maxLength"`
		Format, Pattern string
	}
	openapitest.Decode(t, openapitest.Embedded(t).At(t, "/components/schemas/EndpointSecret"), &s)
	require.NotNil(t, s.MinLength)
	require.NotNil(t, s.MaxLength)
	assert.Equal(t, "password", s.Format, "format: password makes the generated field an api.SecretString")
	re := regexp.MustCompile(s.Pattern)
	valid := func(v string) bool {
		return re.MatchString(v) && int64(len(v)) >= *s.MinLength && int64(len(v)) <= *s.MaxLength
	}
	whsec := func(n int) string {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return "whsec_" + base64.StdEncoding.EncodeToString(b)
	}
	assert.Equal(t, int64(len(whsec(webhook.MinSecretBytes))), *s.MinLength)
	assert.Equal(t, int64(len(whsec(webhook.MaxSecretBytes))), *s.MaxLength)

	var inputs []string
	for n := 0; n <= webhook.MaxSecretBytes+8; n++ {
		for range 8 { // random bytes: every padding and every character class at each size
			v := whsec(n)
			inputs = append(inputs, v, strings.TrimRight(v, "="), v+"=", v[len("whsec_"):], "WHSEC_"+v[len("whsec_"):],
				strings.NewReplacer("+", "-", "/", "_").Replace(v), v+"\n", " "+v)
		}
	}
	inputs = append(inputs, "", "whsec_", "whsec_====", "sk_test_malipo_sandbox", webhook.MerchantSigningSecret("sk_test_malipo_sandbox"))
	for _, v := range inputs {
		_, err := webhook.ParseEndpointSecret(v)
		assert.Equal(t, err == nil, valid(v), "the parser and the schema disagree on a %d-character value (parser error: %v)", len(v), err)
	}
}

// A `secret` the schema refuses is reported at /secret, and no violation repeats the value.
func TestEndpointSecretViolationsDoNotQuoteTheSecret(t *testing.T) {
	short := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x5c}, webhook.MinSecretBytes-1))
	for _, m := range modes(t) {
		for _, op := range []api.Operation{api.OpCreateWebhookEndpoint(), api.OpRotateWebhookEndpointSecret()} {
			body, path := `{"secret":"`+short+`"}`, ""
			if op.ID == api.OpRotateWebhookEndpointSecret().ID {
				path = op.URL("we_2b7c9d1e4f6a8b30")
			} else {
				body, path = `{"url":"https://merchant.example.org/hooks/a","events":["payout.success"],"secret":"`+short+`"}`, op.URL()
			}
			req, err := http.NewRequest(op.Method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(api.HeaderPublicKey, "pk")
			req.Header.Set(api.HeaderSecretKey, "sk")
			vs := m.spec.ValidateRequest(req)
			require.NotEmpty(t, vs, "%s %s", m.name, op.ID)
			for _, v := range vs {
				assert.Equal(t, "/secret", v.Pointer, "%s %s: %s", m.name, op.ID, v.Message)
				assert.NotContains(t, v.Message, short[len("whsec_"):len("whsec_")+8], "%s %s", m.name, op.ID)
				assert.Contains(t, v.Message, "not repeated")
				assert.Equal(t, "#/components/schemas/EndpointSecret/pattern", v.SpecLocation)
			}
		}
	}
}
