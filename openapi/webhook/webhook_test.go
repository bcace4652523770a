package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Published Standard Webhooks test vector, from TestWebhookSign in
// github.com/standard-webhooks/standard-webhooks libraries/go/webhook_test.go
// (identical in "sign function works", libraries/javascript/src/webhook.test.ts).
const (
	vecSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vecID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vecTimestamp = 1614265330
	vecBody      = `{"test": 2432232314}`
	vecSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

const rawSecret = "sk_test_abc123"

var vecTime = time.Unix(vecTimestamp, 0)

// secretFragments are substrings that must never appear in errors or
// formatted output.
var secretFragments = []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "abc123"}

func mustParse(t testing.TB, s string) Secret {
	t.Helper()
	sec, err := ParseSecret(s)
	require.NoError(t, err)
	return sec
}

func mustNew(t testing.TB) Secret {
	t.Helper()
	sec, err := NewSecret()
	require.NoError(t, err)
	return sec
}

func fixedClock(ts time.Time) func() time.Time { return func() time.Time { return ts } }

// rawHMAC computes the expected signature independently of the package code.
func rawHMAC(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func assertNoLeak(t *testing.T, s string) {
	t.Helper()
	for _, frag := range secretFragments {
		assert.NotContains(t, s, frag)
	}
}

func TestSignSpecVector(t *testing.T) {
	tests := []struct {
		name, secret, id string
		ts               time.Time
		body             string
		want             string
	}{
		{"standard-webhooks libraries/go TestWebhookSign", vecSecret, vecID, vecTime, vecBody, vecSignature},
		{"sub-second part of timestamp is dropped", vecSecret, vecID, vecTime.Add(999 * time.Millisecond), vecBody, vecSignature},
		{
			"raw merchant secret uses its UTF-8 bytes as key", rawSecret, vecID, vecTime, vecBody,
			rawHMAC([]byte(rawSecret), vecID+"."+strconv.Itoa(vecTimestamp)+"."+vecBody),
		},
		{
			"whsec secret uses its base64-decoded key", vecSecret, "evt_1", time.Unix(1700000000, 0), "",
			rawHMAC(mustDecode(t, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "evt_1.1700000000."),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := mustParse(t, tt.secret)
			got := Sign(tt.id, tt.ts, []byte(tt.body), sec)
			assert.Equal(t, tt.want, got)

			v := Verifier{Secrets: []Secret{sec}, Now: fixedClock(tt.ts)}
			assert.NoError(t, v.VerifyValues(tt.id, strconv.FormatInt(tt.ts.Unix(), 10), tt.want, []byte(tt.body)))
		})
	}
}

func mustDecode(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

func TestSign(t *testing.T) {
	a, b := mustNew(t), mustNew(t)
	sigRE := regexp.MustCompile(`^v1,[A-Za-z0-9+/]{43}=$`)
	tests := []struct {
		name    string
		secrets []Secret
		wantN   int
	}{
		{"no secrets", nil, 0},
		{"zero secret is skipped", []Secret{{}}, 0},
		{"one secret", []Secret{a}, 1},
		{"two secrets, zero skipped", []Secret{a, {}, b}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sign(vecID, vecTime, []byte(vecBody), tt.secrets...)
			if tt.wantN == 0 {
				assert.Empty(t, got)
				return
			}
			parts := strings.Split(got, " ")
			require.Len(t, parts, tt.wantN)
			for _, p := range parts {
				assert.Regexp(t, sigRE, p)
			}
		})
	}
}

func TestSetHeaders(t *testing.T) {
	sec := mustParse(t, vecSecret)
	h := http.Header{}
	SetHeaders(h, vecID, vecTime, []byte(vecBody), sec)
	assert.Equal(t, vecID, h.Get("Webhook-Id"))
	assert.Equal(t, "1614265330", h.Get("Webhook-Timestamp"))
	assert.Equal(t, vecSignature, h.Get("Webhook-Signature"))
}

func TestParseSecret(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr bool
		wantKey []byte
		wantStr string
	}{
		{name: "whsec", in: vecSecret, wantKey: mustDecode(t, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), wantStr: "whsec_****"},
		{name: "raw merchant key", in: rawSecret, wantKey: []byte(rawSecret), wantStr: "****"},
		{name: "raw key with unicode", in: "clé_secrète", wantKey: []byte("clé_secrète"), wantStr: "****"},
		{name: "prefix-like raw key is raw", in: "whsec", wantKey: []byte("whsec"), wantStr: "****"},
		{name: "empty", in: "", wantErr: true},
		{name: "whsec without key", in: "whsec_", wantErr: true},
		{name: "whsec bad base64", in: "whsec_abc123!!", wantErr: true},
		{name: "whsec missing padding", in: "whsec_abc123a", wantErr: true},
		{name: "whsec with trailing newline", in: vecSecret + "\n", wantErr: true},
		{name: "whsec with embedded CR", in: "whsec_MfKQ9r8GKYqr\rTwjUPD8ILPZIo2LaLaSw", wantErr: true},
		{name: "raw secret is kept as-is, spaces included", in: " sk_test_x ", wantKey: []byte(" sk_test_x "), wantStr: "****"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec, err := ParseSecret(tt.in)
			if tt.wantErr {
				require.Error(t, err)
				assertNoLeak(t, err.Error())
				if tt.in != "" && tt.in != "whsec_" {
					assert.NotContains(t, err.Error(), strings.TrimPrefix(tt.in, "whsec_"))
				}
				assert.Equal(t, Secret{}, sec)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.in, sec.Reveal())
			assert.Equal(t, tt.wantKey, sec.p.val().key)
			assert.Equal(t, tt.wantStr, sec.String())
		})
	}
}

func TestParseEndpointSecret(t *testing.T) {
	whsec := func(n int) string { return "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xA7}, n)) }
	for _, n := range []int{MinSecretBytes, 32, MaxSecretBytes - 1, MaxSecretBytes} {
		in := whsec(n)
		sec, err := ParseEndpointSecret(in)
		require.NoError(t, err, "%d bytes", n)
		assert.Equal(t, in, sec.Reveal())
		assert.Len(t, sec.p.val().key, n)
		assert.Equal(t, Sign(vecID, vecTime, []byte(vecBody), mustParse(t, in)), Sign(vecID, vecTime, []byte(vecBody), sec),
			"an endpoint secret signs as ParseSecret's reading of it does")
	}
	sec, err := ParseEndpointSecret(mustNew(t).Reveal())
	require.NoError(t, err, "what NewSecret makes is a valid endpoint secret")
	assert.Equal(t, "whsec_****", sec.String())

	tests := []struct{ name, in, want string }{
		{"one byte short", whsec(MinSecretBytes - 1), "decodes to 23 bytes"},
		{"one byte long", whsec(MaxSecretBytes + 1), "decodes to 65 bytes"},
		{"the published test vector is 24 bytes, but 16 is not", whsec(16), "decodes to 16 bytes"},
		{"empty", "", "is empty"},
		{"a merchant key", rawSecret, "does not start with whsec_"},
		{"a character outside base64", "whsec_" + strings.Repeat("a7", 15) + "!!", "not valid base64"},
		{"unpadded", strings.TrimRight(whsec(32), "="), "not valid base64"},
		{"URL-safe alphabet", strings.NewReplacer("+", "-", "/", "_").Replace("whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xFB, 0xFF}, 16))), "not valid base64"},
		{"trailing newline", whsec(32) + "\n", "line break"},
		{"prefix only", "whsec_", "decodes to 0 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec, err := ParseEndpointSecret(tt.in)
			require.Error(t, err)
			assert.Equal(t, Secret{}, sec)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "24 to 64 random bytes", "the error says what a valid secret is")
			if body := strings.TrimPrefix(tt.in, "whsec_"); len(body) > 4 {
				assert.NotContains(t, err.Error(), body, "the error must not quote the secret")
			}
			assertNoLeak(t, err.Error())
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := mustNew(t), mustNew(t)
	assert.NotEqual(t, a.Reveal(), b.Reveal())
	for _, s := range []Secret{a, b} {
		require.True(t, strings.HasPrefix(s.Reveal(), "whsec_"))
		assert.Len(t, mustDecode(t, strings.TrimPrefix(s.Reveal(), "whsec_")), 32)
		assert.Equal(t, "whsec_****", s.String())

		// What the user is shown must sign identically when parsed back.
		back := mustParse(t, s.Reveal())
		assert.Equal(t, Sign(vecID, vecTime, []byte(vecBody), s), Sign(vecID, vecTime, []byte(vecBody), back))
	}
}

func TestSecretRedaction(t *testing.T) {
	type exported struct{ Secret Secret }
	type unexported struct {
		name   string
		secret Secret
	}
	for _, in := range []string{vecSecret, rawSecret} {
		sec := mustParse(t, in)
		values := []any{sec, &sec, []Secret{sec}, exported{sec}, &exported{sec}, unexported{"x", sec}, map[string]Secret{"k": sec}}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
			for _, v := range values {
				out := fmt.Sprintf(verb, v)
				assertNoLeak(t, out)
				assert.NotContains(t, out, fmt.Sprintf("%x", sec.p.val().key), "verb %s", verb)
			}
		}
		assert.Equal(t, "webhook.Secret("+sec.String()+")", fmt.Sprintf("%#v", sec))
		assert.Equal(t, strconv.Quote(sec.String()), fmt.Sprintf("%q", sec))
		assertNoLeak(t, fmt.Sprint(sec)+fmt.Sprintln(sec)+sec.GoString())

		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("msg", "secret", sec, "v", exported{sec})
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("msg", "secret", sec)
		assertNoLeak(t, buf.String())
		assert.Contains(t, buf.String(), sec.String())
	}
	assert.Equal(t, "<unset>", Secret{}.String())
	assert.Empty(t, Secret{}.Reveal())
}

// delivery is a signed request under test.
type delivery struct {
	h    http.Header
	body []byte
}

func newDelivery(t *testing.T, ts time.Time, secrets ...Secret) *delivery {
	t.Helper()
	d := &delivery{h: http.Header{}, body: []byte(vecBody)}
	SetHeaders(d.h, vecID, ts, d.body, secrets...)
	return d
}

func TestVerify(t *testing.T) {
	whsec, raw := mustParse(t, vecSecret), mustParse(t, rawSecret)
	oldSec, newSec, other := mustNew(t), mustNew(t), mustNew(t)
	now := vecTime
	validSig := vecSignature
	otherSig := Sign(vecID, now, []byte(vecBody), other)

	tests := []struct {
		name      string
		signWith  []Secret
		mutate    func(d *delivery)
		verifier  Verifier // Now defaults to the fixed clock
		wantErr   error
		wantInMsg string
	}{
		{name: "whsec round trip", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}},
		{name: "raw secret round trip", signWith: []Secret{raw}, verifier: Verifier{Secrets: []Secret{raw}}},
		{name: "raw secret does not verify whsec signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{raw}}, wantErr: ErrNoMatchingSignature},
		{name: "wrong secret", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{other}}, wantErr: ErrNoMatchingSignature, wantInMsg: "1 v1 signature"},
		{name: "rotation: old+new signed, receiver has new", signWith: []Secret{oldSec, newSec}, verifier: Verifier{Secrets: []Secret{newSec}}},
		{name: "rotation: old+new signed, receiver has old", signWith: []Secret{oldSec, newSec}, verifier: Verifier{Secrets: []Secret{oldSec}}},
		{name: "rotation: new signed, receiver has both", signWith: []Secret{newSec}, verifier: Verifier{Secrets: []Secret{oldSec, newSec}}},
		{name: "rotation: neither matches", signWith: []Secret{oldSec, newSec}, verifier: Verifier{Secrets: []Secret{other, whsec}}, wantErr: ErrNoMatchingSignature, wantInMsg: "2 v1 signature"},
		{
			name: "any one of several signatures suffices", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}},
			mutate: func(d *delivery) {
				d.h.Set(HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= "+validSig+" "+otherSig)
			},
		},
		{
			name: "signature split over repeated headers", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}},
			mutate: func(d *delivery) { d.h[http.CanonicalHeaderKey(HeaderSignature)] = []string{otherSig, validSig} },
		},
		{name: "tampered body", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.body = []byte(`{"test": 2432232315}`) }, wantErr: ErrNoMatchingSignature},
		{name: "re-encoded body", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.body = []byte(`{"test":2432232314}`) }, wantErr: ErrNoMatchingSignature},
		{name: "tampered id", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderID, vecID+"x") }, wantErr: ErrNoMatchingSignature},
		{name: "tampered timestamp within tolerance", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "1614265331") }, wantErr: ErrNoMatchingSignature},
		{name: "tampered signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, "v1,h0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=") }, wantErr: ErrNoMatchingSignature},
		{name: "missing id", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Del(HeaderID) }, wantErr: ErrMissingHeader, wantInMsg: `"webhook-id"`},
		{name: "missing timestamp", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Del(HeaderTimestamp) }, wantErr: ErrMissingHeader, wantInMsg: `"webhook-timestamp"`},
		{name: "missing signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Del(HeaderSignature) }, wantErr: ErrMissingHeader, wantInMsg: `"webhook-signature"`},
		{name: "blank signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, "  ") }, wantErr: ErrMissingHeader, wantInMsg: `"webhook-signature"`},
		{name: "nil header", verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h = nil }, wantErr: ErrMissingHeader, wantInMsg: `"webhook-id"`},
		{name: "timestamp not an integer", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "hello") }, wantErr: ErrInvalidTimestamp, wantInMsg: `"hello"`},
		{name: "timestamp RFC 3339", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "2021-02-25T15:02:10Z") }, wantErr: ErrInvalidTimestamp},
		{name: "timestamp fractional", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "1614265330.5") }, wantErr: ErrInvalidTimestamp},
		{name: "timestamp overflows int64", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "99999999999999999999") }, wantErr: ErrInvalidTimestamp},
		{name: "timestamp in milliseconds is too new", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderTimestamp, "1614265330000") }, wantErr: ErrTimestampTooNew},
		{name: "too old", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Now: fixedClock(now.Add(5*time.Minute + time.Second))}, wantErr: ErrTimestampTooOld, wantInMsg: "5m0s"},
		{name: "exactly at tolerance (old) is accepted", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Now: fixedClock(now.Add(5 * time.Minute))}},
		{name: "too new", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Now: fixedClock(now.Add(-5*time.Minute - time.Second))}, wantErr: ErrTimestampTooNew},
		{name: "exactly at tolerance (new) is accepted", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Now: fixedClock(now.Add(-5 * time.Minute))}},
		{name: "custom tolerance", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Tolerance: time.Minute, Now: fixedClock(now.Add(61 * time.Second))}, wantErr: ErrTimestampTooOld, wantInMsg: "1m0s"},
		{name: "negative tolerance means default", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Tolerance: -time.Second, Now: fixedClock(now.Add(4 * time.Minute))}},
		{name: "real clock rejects 2021 timestamp", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}, Now: time.Now}, wantErr: ErrTimestampTooOld},
		{
			name: "unknown version with valid MAC is ignored", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}},
			mutate: func(d *delivery) {
				d.h.Set(HeaderSignature, "v1a,"+strings.TrimPrefix(validSig, "v1,")+" v2,"+strings.TrimPrefix(validSig, "v1,"))
			},
			wantErr: ErrNoMatchingSignature, wantInMsg: "no v1 signature",
		},
		{
			name: "unknown version alongside valid v1", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}},
			mutate: func(d *delivery) {
				d.h.Set(HeaderSignature, "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== "+validSig)
			},
		},
		{name: "version is case-sensitive", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, "V1,"+strings.TrimPrefix(validSig, "v1,")) }, wantErr: ErrNoMatchingSignature},
		{
			name: "extra whitespace", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}},
			mutate: func(d *delivery) {
				d.h.Set(HeaderSignature, " \t "+otherSig+"   \t"+validSig+"  ")
				d.h.Set(HeaderTimestamp, " 1614265330 ")
			},
		},
		{name: "partial signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, validSig[:8]) }, wantErr: ErrNoMatchingSignature},
		{name: "empty v1 signature", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, "v1,") }, wantErr: ErrNoMatchingSignature},
		{name: "no comma", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, strings.Replace(validSig, ",", "", 1)) }, wantErr: ErrNoMatchingSignature},
		{name: "unpadded base64", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, strings.TrimSuffix(validSig, "=")) }, wantErr: ErrNoMatchingSignature},
		{name: "hex instead of base64", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{whsec}}, mutate: func(d *delivery) { d.h.Set(HeaderSignature, "v1,"+strings.Repeat("ab", 32)) }, wantErr: ErrNoMatchingSignature},
		{name: "no secrets configured", signWith: []Secret{whsec}, verifier: Verifier{}, wantErr: ErrNoSecrets},
		{name: "only zero secrets configured", signWith: []Secret{whsec}, verifier: Verifier{Secrets: []Secret{{}, {}}}, wantErr: ErrNoSecrets},
		{
			name: "zero secret never matches a MAC made with an empty key", verifier: Verifier{Secrets: []Secret{{}, whsec}},
			mutate: func(d *delivery) {
				d.h = http.Header{}
				d.h.Set(HeaderID, vecID)
				d.h.Set(HeaderTimestamp, "1614265330")
				d.h.Set(HeaderSignature, rawHMAC(nil, vecID+".1614265330."+vecBody))
			},
			wantErr: ErrNoMatchingSignature,
		},
		{name: "many secrets", signWith: []Secret{newSec}, verifier: Verifier{Secrets: []Secret{other, whsec, raw, oldSec, {}, mustNew(t), newSec}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDelivery(t, now, tt.signWith...)
			if tt.mutate != nil {
				tt.mutate(d)
			}
			v := tt.verifier
			if v.Now == nil {
				v.Now = fixedClock(now)
			}

			err := v.Verify(d.h, d.body)
			valuesErr := v.VerifyValues(d.h.Get(HeaderID), d.h.Get(HeaderTimestamp), strings.Join(d.h.Values(HeaderSignature), " "), d.body)
			matched, matchErr := v.MatchingSecrets(d.h, d.body)

			if tt.wantErr == nil {
				assert.NoError(t, err)
				assert.NoError(t, valuesErr)
				assert.NoError(t, matchErr)
				assert.NotEmpty(t, matched)
				return
			}
			for _, e := range []error{err, valuesErr, matchErr} {
				require.Error(t, e)
				assert.ErrorIs(t, e, tt.wantErr)
				assert.Contains(t, e.Error(), tt.wantInMsg)
				assertNoLeak(t, e.Error())
				for _, s := range append(tt.verifier.Secrets, tt.signWith...) {
					if s.Reveal() != "" {
						assert.NotContains(t, e.Error(), s.Reveal())
					}
				}
			}
			assert.Nil(t, matched)
		})
	}
}

// TestRotation is the conformance-suite scenario: after rotating a secret,
// a delivery carries one signature per valid secret and each verifies with
// exactly one of them.
func TestRotation(t *testing.T) {
	oldSec, newSec, unrelated := mustNew(t), mustNew(t), mustParse(t, rawSecret)
	d := newDelivery(t, vecTime, oldSec, newSec)
	sigHeader := d.h.Get(HeaderSignature)

	sigs := Signatures(sigHeader)
	require.Len(t, sigs, 2)
	for i, want := range []Secret{oldSec, newSec} {
		for _, s := range []Secret{oldSec, newSec, unrelated} {
			v := Verifier{Secrets: []Secret{s}, Now: fixedClock(vecTime)}
			err := v.VerifyValues(vecID, "1614265330", sigs[i], d.body)
			if s == want {
				assert.NoError(t, err, "signature %d with its own secret", i)
			} else {
				assert.ErrorIs(t, err, ErrNoMatchingSignature, "signature %d with another secret", i)
			}
		}
	}

	v := Verifier{Secrets: []Secret{unrelated, newSec, oldSec}, Now: fixedClock(vecTime)}
	matched, err := v.MatchingSecrets(d.h, d.body)
	require.NoError(t, err)
	assert.Equal(t, []Secret{newSec, oldSec}, matched, "in Verifier.Secrets order")

	// Once the old secret expires, only the new one signs.
	d = newDelivery(t, vecTime, newSec)
	matched, err = v.MatchingSecrets(d.h, d.body)
	require.NoError(t, err)
	assert.Equal(t, []Secret{newSec}, matched)
}

func TestSignatures(t *testing.T) {
	tests := []struct {
		name, header string
		want         []string
	}{
		{"empty", "", nil},
		{"one", vecSignature, []string{vecSignature}},
		{"whitespace and other versions", "  v1a,xyz \t v1,aaa  v2,bbb v1,ccc v1, v1 junk ", []string{"v1,aaa", "v1,ccc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Signatures(tt.header))
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(vecID, "1614265330", vecSignature, []byte(vecBody))
	f.Add(vecID, "1614265330", "v1a,abc v1,"+strings.Repeat("A", 43)+"= v1,", []byte(""))
	f.Add("", "", "", []byte(nil))
	f.Add("a.b", "-1", "v1,,,, ,v1", []byte{0xff, 0x00})
	f.Add("x", "+1614265330", " \tv1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\n", []byte("{}"))
	f.Add("x", "9223372036854775807", "v1,====", []byte("{}"))

	secrets := []Secret{mustParse(f, vecSecret), mustParse(f, rawSecret), {}}
	v := Verifier{Secrets: secrets, Now: fixedClock(vecTime)}
	sentinels := []error{ErrMissingHeader, ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew, ErrNoMatchingSignature}

	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		for _, err := range []error{v.VerifyValues(id, ts, sig, body), v.Verify(h, body)} {
			if err == nil {
				continue
			}
			known := false
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			for _, frag := range secretFragments {
				if strings.Contains(err.Error(), frag) && !strings.Contains(id+ts+sig, frag) {
					t.Fatalf("error leaks secret: %v", err)
				}
			}
		}
		if _, err := v.MatchingSecrets(h, body); err == nil && len(Signatures(strings.Join(h.Values(HeaderSignature), " "))) == 0 {
			t.Fatal("accepted a delivery without v1 signatures")
		}
		for _, s := range Signatures(sig) {
			if !strings.HasPrefix(s, "v1,") || len(s) == 3 {
				t.Fatalf("Signatures returned %q", s)
			}
		}

		// Anything we sign, we verify.
		if strings.TrimSpace(id) != "" {
			signed := Sign(id, vecTime, body, secrets...)
			if err := v.VerifyValues(id, "1614265330", signed, body); err != nil {
				t.Fatalf("own signature rejected: %v", err)
			}
		}
	})
}

func benchSetup(b *testing.B) (Verifier, http.Header, []byte) {
	body := bytes.Repeat([]byte("x"), 1024)
	oldSec, newSec := mustNew(b), mustNew(b)
	h := http.Header{}
	SetHeaders(h, vecID, vecTime, body, oldSec, newSec)
	return Verifier{Secrets: []Secret{newSec}, Now: fixedClock(vecTime)}, h, body
}

func BenchmarkSign(b *testing.B) {
	sec := mustParse(b, vecSecret)
	body := bytes.Repeat([]byte("x"), 1024)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Sign(vecID, vecTime, body, sec)
	}
}

// BenchmarkVerify verifies a 1 KiB delivery signed with two secrets (a
// rotation) where the receiver holds only the newer one.
func BenchmarkVerify(b *testing.B) {
	v, h, body := benchSetup(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(h, body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMerchantSigningSecret ties the documented derivation to the signing key: a delivery signed with the
// merchant secret key (as the sandbox signs webhook_url deliveries) verifies with its whsec_ form.
func TestMerchantSigningSecret(t *testing.T) {
	const key = "sk_test_malipo_sandbox"
	assert.Equal(t, "whsec_c2tfdGVzdF9tYWxpcG9fc2FuZGJveA==", MerchantSigningSecret(key))
	raw, err := ParseSecret(key)
	require.NoError(t, err)
	whsec, err := ParseSecret(MerchantSigningSecret(key))
	require.NoError(t, err)
	h := http.Header{}
	SetHeaders(h, "evt_1", time.Now(), []byte(`{}`), raw)
	assert.NoError(t, Verifier{Secrets: []Secret{whsec}}.Verify(h, []byte(`{}`)))
}

// NewSecretOfSize makes, for every size an endpoint secret may have, a secret ParseEndpointSecret takes
// and that decodes to that many bytes, different each time; other sizes are refused.
func TestNewSecretOfSize(t *testing.T) {
	for n := MinSecretBytes; n <= MaxSecretBytes; n++ {
		s, err := NewSecretOfSize(n)
		require.NoError(t, err)
		parsed, err := ParseEndpointSecret(s.Reveal())
		require.NoError(t, err, "size %d", n)
		v, _ := parsed.value()
		assert.Len(t, v.key, n)
		other, err := NewSecretOfSize(n)
		require.NoError(t, err)
		assert.NotEqual(t, s.Reveal(), other.Reveal())
	}
	for _, n := range []int{0, MinSecretBytes - 1, MaxSecretBytes + 1} {
		_, err := NewSecretOfSize(n)
		assert.Error(t, err, "size %d", n)
	}
}
