package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Keys of the curl tests: made up here, since what matters is that they never appear in a command.
var (
	ownKeys   = struct{ Public, Secret string }{Public: "pk_test_curl_own_1", Secret: "sk_test_curl_own_2"}
	otherKeys = struct{ Public, Secret string }{Public: "pk_test_curl_other_3", Secret: "sk_test_curl_other_4"}
)

// curlTestRedactor knows the keys as the contract suite hands them over, each with the variable the
// CLI reads it from.
func curlTestRedactor() Redactor {
	return NewRedactor(Key{Value: ownKeys.Public, Env: "MALIPO_PUBLIC_KEY"}, Key{Value: ownKeys.Secret, Env: "MALIPO_SECRET_KEY"},
		Key{Value: otherKeys.Public, Env: "MALIPO_OTHER_PUBLIC_KEY"}, Key{Value: otherKeys.Secret, Env: "MALIPO_OTHER_SECRET_KEY"})
}

// curlEnv is the environment a user pastes the commands into.
func curlEnv() []string {
	return append(os.Environ(),
		"MALIPO_PUBLIC_KEY="+ownKeys.Public, "MALIPO_SECRET_KEY="+ownKeys.Secret,
		"MALIPO_OTHER_PUBLIC_KEY="+otherKeys.Public, "MALIPO_OTHER_SECRET_KEY="+otherKeys.Secret)
}

// requireCurl finds the real curl; the tests that replay commands need it (Debian package curl).
func requireCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("these tests run the replay commands with the real curl, which is not on PATH: install it (apt-get install curl): %v", err)
	}
}

// received is a request as the server got it.
type received struct {
	method, uri string
	header      http.Header
	body        []byte
}

// TestCurlSendsTheSameRequest runs each command with bash and the real curl against a server that
// records what arrives: method, URL, every header the suite set and the body arrive byte for byte,
// with the keys read from the environment, while the command itself holds no key value.
func TestCurlSendsTheSameRequest(t *testing.T) {
	requireCurl(t)
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{method: r.Method, uri: r.URL.RequestURI(), header: r.Header.Clone(), body: body})
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	red := curlTestRedactor()
	own, other := ownKeys, otherKeys
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	withRuns := append(append([]byte(`{"a":"`), bytes.Repeat([]byte("x"), 4097)...), append([]byte("\x00\x00'\"$`"), bytes.Repeat([]byte{0}, 2049)...)...)
	cases := []struct {
		name, method, uri string
		header            http.Header
		body              []byte
	}{
		{"json body with everything a shell interprets", http.MethodPost, "/v1/x", h("Content-Type", "application/json",
			api.HeaderPublicKey, own.Public, api.HeaderSecretKey, own.Secret, api.HeaderIdempotencyKey, "k-1"),
			[]byte("{\"n\":\"it's \\\"quoted\\\" $HOME `id` !! \\\\ back\nslash ünïcode '\\'' %s\"}")},
		{"get with a query, the other merchant's public key and a wrong literal secret key", http.MethodGet, "/v1/y?country=ZM&q=a%20b",
			h(api.HeaderPublicKey, other.Public, api.HeaderSecretKey, "sk_conform_wrong"), nil},
		{"keys swapped", http.MethodPost, "/v1/z", h("Content-Type", "application/json", api.HeaderPublicKey, own.Secret, api.HeaderSecretKey, own.Public),
			[]byte(`{}`)},
		{"body without a content type", http.MethodPost, "/v1/z", h(api.HeaderPublicKey, own.Public), []byte("amount=1")},
		{"empty header value", http.MethodDelete, "/v1/z/1", h(api.HeaderPublicKey, "", api.HeaderSecretKey, other.Secret), nil},
		{"long runs and NUL bytes", http.MethodPatch, "/v1/z/2", h("Content-Type", "application/octet-stream"), withRuns},
		{"a key inside the body", http.MethodPost, "/v1/z", h("Content-Type", "application/json"), []byte(`{"k":"` + own.Secret + `x","o":"` + other.Public + `"}`)},
		{"empty body", http.MethodPost, "/v1/z", h(), []byte{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := red.Curl(c.method, srv.URL+c.uri, c.header, c.body, nil)
			for _, k := range red.keys {
				assert.NotContains(t, cmd, k.Value, "a key value is in the command")
			}
			mu.Lock()
			got = nil
			mu.Unlock()
			status := runCurl(t, cmd)
			assert.Equal(t, "418", status)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 1, "the command sent one request: %s", cmd)
			r := got[0]
			assert.Equal(t, c.method, r.method)
			assert.Equal(t, c.uri, r.uri)
			assert.True(t, bytes.Equal(c.body, r.body), "body sent %q, received %q", c.body, r.body)
			for name, values := range c.header {
				assert.Equal(t, values, r.header.Values(name), "header %s", name)
			}
			if c.header.Get("Content-Type") == "" {
				assert.Empty(t, r.header.Values("Content-Type"), "curl added a Content-Type the suite did not send")
			}
		})
	}
}

// A webhook endpoint secret the request supplied is replaced by a fresh one the shell makes (the target
// accepts it the same way, and the secret is not printed), and so is a merchant reference the suite
// made, when asked (it would be a duplicate).
func TestCurlMakesFreshSecretsAndReferences(t *testing.T) {
	requireCurl(t)
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	secret := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, webhook.MinSecretBytes))
	weak := "whsec_" + base64.StdEncoding.EncodeToString([]byte("short"))
	ref := "conform-0123456789abcdef" // a reference as the contract suite makes them
	sent := `{"secret":"` + secret + `","other":"` + weak + `","reference":"` + ref + `"}`
	red := curlTestRedactor()
	cmd := red.Curl(http.MethodPost, srv.URL, http.Header{"Content-Type": {"application/json"}}, []byte(sent), GeneratedReferences([]byte(sent)))
	assert.NotContains(t, cmd, ref)
	assert.NotContains(t, cmd, secret)
	assert.Contains(t, cmd, weak, "a secret the API refuses is no secret: it is sent as it was, so that it is refused again")
	runCurl(t, cmd)
	m := regexp.MustCompile(`^\{"secret":"(whsec_[^"]+)","other":"` + regexp.QuoteMeta(weak) + `","reference":"(conform-[0-9a-f]{16})"\}$`).FindSubmatch(body)
	require.NotNil(t, m, "received %s", body)
	_, err := webhook.ParseEndpointSecret(string(m[1]))
	require.NoError(t, err, "the fresh secret must be one the API accepts")
	assert.NotEqual(t, secret, string(m[1]))
	assert.NotEqual(t, ref, string(m[2]))
}

func runCurl(t *testing.T, cmd string) string {
	t.Helper()
	c := exec.Command("bash", "-c", cmd+` -o /dev/null -w '%{http_code}'`)
	c.Env = curlEnv()
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	require.NoError(t, err, "command %s: %s", cmd, stderr.String())
	return strings.TrimSpace(string(out))
}

// Every key value and webhook secret is redacted wherever it is, masked with its kind's prefix; a key
// header holding a value the suite invented stays as it was.
func TestRedaction(t *testing.T) {
	red := curlTestRedactor()
	own, other := ownKeys, otherKeys
	secret := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32))
	text := red.Text(`{"a":"` + own.Secret + `","b":"` + strings.ReplaceAll(secret, "/", `\/`) + `"} ?k=` + other.Public + " " + webhook.MerchantSigningSecret(own.Secret))
	for _, v := range []string{own.Secret, other.Public, secret, webhook.MerchantSigningSecret(own.Secret)} {
		assert.NotContains(t, text, v)
	}
	assert.Contains(t, text, `"a":"sk_test_…(redacted)"`)
	assert.Contains(t, text, `"b":"whsec_…(redacted)"`)
	hdr := red.Header(http.Header{"Public-Key": {own.Public}, "Secret-Key": {"sk_conform_wrong"}})
	assert.Equal(t, "pk_test_…(redacted)", hdr.Get(api.HeaderPublicKey))
	assert.Equal(t, "sk_conform_wrong", hdr.Get(api.HeaderSecretKey))

	short := NewRedactor(Key{Value: "pk", Env: "MALIPO_PUBLIC_KEY"}, Key{Value: "abc", Env: "MALIPO_SECRET_KEY"})
	hdr = short.Header(http.Header{"Public-Key": {"pk"}, "Secret-Key": {"abc"}})
	assert.Equal(t, "…(redacted)", hdr.Get(api.HeaderPublicKey), "a short key is still masked as a header value")
	assert.Equal(t, "…(redacted)", hdr.Get(api.HeaderSecretKey))
	assert.Equal(t, `"public-key: $MALIPO_PUBLIC_KEY"`, words{Redactor: short}.headerWord(api.HeaderPublicKey, "pk"))
}

// A body longer than MaxEvidenceBody is cut there, at a character boundary, with its real size kept.
func TestEvidenceBodiesAreCut(t *testing.T) {
	var m HTTPMessage
	body := []byte(strings.Repeat("é", MaxEvidenceBody))
	curlTestRedactor().Message(&m, nil, body)
	assert.True(t, m.BodyTruncated)
	assert.Equal(t, len(body), m.BodySize)
	assert.LessOrEqual(t, len(m.Body), MaxEvidenceBody)
	assert.Greater(t, len(m.Body), MaxEvidenceBody-2)
	assert.True(t, strings.HasSuffix(m.Body, "é"), "cut inside a character")
}

// A body holding what XML cannot (control characters, invalid UTF-8) or what ends CDATA (]]>) still
// gives a well-formed JUnit file, with the rest of the body as it was.
func TestJUnitHoldsAnyBody(t *testing.T) {
	path := t.TempDir() + "/r.xml"
	body := "a\x00b\x1b]]>c é \xff"
	res := Result{ID: "x.y", Category: "negative", Outcome: Failed, Failures: []Failure{{Message: "m", Exchange: "GET /x → 500", Evidence: []int{0}}},
		Evidence: []Evidence{{Kind: EvidenceRequest, Request: HTTPMessage{Method: http.MethodGet, URL: "http://h/x"},
			Response: HTTPMessage{Status: http.StatusInternalServerError, Body: body, BodySize: len(body)}, Curl: "curl http://h/x"}}}
	require.NoError(t, JUnitReporter{Path: path}.Finish(&Summary{Results: []Result{res}, Failed: 1}))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var junit struct {
		Suite struct {
			Case struct {
				Failure   string `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &junit), "%s", data)
	assert.Contains(t, junit.Suite.Case.SystemOut, "a\uFFFDb\uFFFD]]>c é \uFFFD")
	assert.Contains(t, junit.Suite.Case.Failure, "replay:   curl http://h/x")
}
