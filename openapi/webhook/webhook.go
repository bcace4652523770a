// Package webhook signs and verifies webhook deliveries according to
// Standard Webhooks (https://www.standardwebhooks.com, spec/standard-webhooks.md
// in github.com/standard-webhooks/standard-webhooks).
//
// It exists so that the sandbox server (which signs deliveries), the
// conformance suite (which verifies them) and the documentation examples all
// share one implementation of the scheme instead of three subtly different
// ones:
//
//	webhook-id:        <event id, identical on every retry>
//	webhook-timestamp: <unix seconds of this attempt>
//	webhook-signature: v1,<base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))> [v1,<...> ...]
//
// Only symmetric v1 signatures are produced and checked; other versions (for
// example asymmetric v1a) are ignored by the verifier, as the specification
// requires for forward compatibility.
//
// Receiver is a merchant's side of it as an http.Handler: it verifies each
// delivery, hands a verified one on once (deduplicating on webhook-id, and
// forgetting an id whose handling failed, so that the retry is handled), and
// answers what the service expects.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/internal/redact"
)

// Header names defined by Standard Webhooks. They are exported so that the
// server, the conformance suite and the docs refer to the same spelling.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// DefaultTolerance is how far webhook-timestamp may be from the receiver's
// clock when Verifier.Tolerance is zero. Five minutes is what the reference
// Standard Webhooks libraries use: long enough to absorb clock skew and
// queueing, short enough to make replaying a captured delivery impractical.
const DefaultTolerance = 5 * time.Minute

// whsecPrefix marks a base64-encoded Standard Webhooks signing secret.
const whsecPrefix = "whsec_"

// v1 signatures are base64 (standard alphabet, padded) HMAC-SHA256 outputs.
const (
	versionV1    = "v1"
	encodedMACSz = 44 // base64.StdEncoding.EncodedLen(sha256.Size)
)

// Sentinel errors returned (wrapped, with a more specific message) by
// Verifier. They exist so callers can map failures to behaviour with
// errors.Is (e.g. the conformance suite asserting "replay rejected") without
// parsing messages. No error produced by this package contains secret material.
var (
	// ErrMissingHeader means one of the three webhook-* headers is absent or
	// empty; the wrapped message names the header.
	ErrMissingHeader = errors.New("webhook: missing header")
	// ErrInvalidTimestamp means webhook-timestamp is not an integer number of
	// unix seconds.
	ErrInvalidTimestamp = errors.New("webhook: invalid timestamp")
	// ErrTimestampTooOld means webhook-timestamp is further in the past than
	// the tolerance allows, which is how replayed deliveries are rejected.
	ErrTimestampTooOld = errors.New("webhook: timestamp too old")
	// ErrTimestampTooNew means webhook-timestamp is further in the future than
	// the tolerance allows, usually because a clock is wrong.
	ErrTimestampTooNew = errors.New("webhook: timestamp too new")
	// ErrNoMatchingSignature means no v1 signature in webhook-signature was
	// produced by any of the verifier's secrets (wrong secret, or the id,
	// timestamp or body were altered).
	ErrNoMatchingSignature = errors.New("webhook: no matching signature")
	// ErrNoSecrets means the Verifier has no usable secret. It is a
	// configuration error, reported separately so it is not mistaken for a
	// forged delivery.
	ErrNoSecrets = errors.New("webhook: no secrets configured")
)

// Secret is a webhook signing secret. It is an opaque type rather than a
// string so that the two accepted forms are decoded in exactly one place and
// so that printing or logging it (fmt, %v/%+v/%#v, slog) cannot leak it: the
// only way to get the secret text back is the explicit Reveal method.
//
// The zero Secret is unusable: Sign skips it and Verifier ignores it.
type Secret struct {
	// When a Secret is an unexported field of another struct, fmt prints it
	// by reflection without calling its methods (even with %s or %q, via
	// its bad-verb output). The pointer and the closure inside it make
	// such output show only addresses.
	p *secret
}

type secret struct {
	val func() secretValue
}

type secretValue struct {
	text  string // exactly as given to ParseSecret, for Reveal
	key   []byte // HMAC key
	whsec bool
}

func makeSecret(v secretValue) Secret {
	return Secret{p: &secret{val: func() secretValue { return v }}}
}

// value returns the secret's contents; ok is false for the zero Secret.
func (s Secret) value() (v secretValue, ok bool) {
	if s.p == nil || s.p.val == nil {
		return secretValue{}, false
	}
	return s.p.val(), true
}

// MerchantSigningSecret returns the Standard Webhooks form of a merchant secret key: "whsec_" and the
// standard base64 of the key's UTF-8 bytes. Deliveries to a payment's or payout's own webhook_url are
// signed with the key's bytes as the HMAC key; the official libraries (standardwebhooks, svix) take
// their secret as whsec_<base64 of the HMAC key>, so this string is what a merchant passes to them
// (`new Webhook(secret).verify(body, headers)`). The API documents the same derivation, and the sandbox
// prints the result in its banner.
func MerchantSigningSecret(secretKey string) string {
	return whsecPrefix + base64.StdEncoding.EncodeToString([]byte(secretKey))
}

// ParseSecret turns secret text into a Secret. Two forms are accepted because
// the sandbox signs two kinds of deliveries:
//
//   - "whsec_<base64>": a Standard Webhooks endpoint secret; the HMAC key is the
//     base64-decoded (standard alphabet, padded) part after the prefix.
//   - anything else, e.g. a merchant secret key "sk_test_abc123": the HMAC key
//     is the UTF-8 bytes of the whole string, unchanged. Note this differs from
//     the reference libraries, which base64-decode unprefixed secrets too.
//
// Error messages never contain the secret text.
func ParseSecret(s string) (Secret, error) {
	if s == "" {
		return Secret{}, errors.New("webhook: secret is empty; pass a whsec_<base64> endpoint secret or the merchant's secret key")
	}
	if !strings.HasPrefix(s, whsecPrefix) {
		return makeSecret(secretValue{text: s, key: []byte(s)}), nil
	}
	if strings.ContainsAny(s, "\r\n") {
		// encoding/base64 would silently skip these, and Reveal would then
		// return a secret with a stray line break.
		return Secret{}, errors.New("webhook: secret starts with whsec_ but contains a line break; remove it (e.g. trim a value read from a file)")
	}
	key, err := base64.StdEncoding.DecodeString(s[len(whsecPrefix):])
	if err != nil {
		// err is deliberately not wrapped: keep any secret-derived detail out.
		return Secret{}, errors.New("webhook: secret starts with whsec_ but the rest is not valid padded standard base64; copy the whole secret exactly as it was issued")
	}
	if len(key) == 0 {
		return Secret{}, errors.New("webhook: secret has the whsec_ prefix but no key after it; copy the whole secret exactly as it was issued")
	}
	return makeSecret(secretValue{text: s, key: key, whsec: true}), nil
}

// The strength Standard Webhooks requires of a symmetric signing secret (spec/standard-webhooks.md:
// "Random. At least 24 bytes (192 bits, 512 maximum)"), as the size of the HMAC key a whsec_ secret
// decodes to. NewSecret makes 32 bytes.
const (
	MinSecretBytes = 24
	MaxSecretBytes = 64
)

// ParseEndpointSecret parses a webhook endpoint secret that a caller chose instead of letting the service
// generate one. It is ParseSecret restricted to what Standard Webhooks calls a signing secret: "whsec_"
// and the standard base64 (padded) of MinSecretBytes to MaxSecretBytes bytes. A merchant key, a short
// key or text that is not base64 is refused: a short key can be found offline from one signed
// delivery. (Whether the bytes are random cannot be told from them; the error says how to make them.) The error says what is wrong and how to make a good secret; it never contains the secret
// text (only, for a wrong size, how many bytes it decodes to).
func ParseEndpointSecret(s string) (Secret, error) {
	const howTo = `; make one from a cryptographic random source, for example "whsec_" followed by the output of ` +
		"`openssl rand -base64 32`"
	form := fmt.Sprintf("an endpoint secret is whsec_ followed by the standard base64 (with = padding) of %d to %d random bytes",
		MinSecretBytes, MaxSecretBytes)
	switch {
	case s == "":
		return Secret{}, errors.New("webhook: the endpoint secret is empty; " + form + howTo)
	case !strings.HasPrefix(s, whsecPrefix):
		return Secret{}, errors.New("webhook: the endpoint secret does not start with whsec_; " + form + howTo)
	case strings.ContainsAny(s, "\r\n"):
		return Secret{}, errors.New("webhook: the endpoint secret contains a line break (trim a value read from a file); " + form)
	}
	key, err := base64.StdEncoding.DecodeString(s[len(whsecPrefix):])
	if err != nil {
		// err is deliberately not wrapped: it quotes the offending position's byte.
		return Secret{}, errors.New("webhook: the endpoint secret is not valid base64 after whsec_; " + form + howTo)
	}
	if n := len(key); n < MinSecretBytes || n > MaxSecretBytes {
		return Secret{}, fmt.Errorf("webhook: the endpoint secret decodes to %d bytes; %s%s", n, form, howTo)
	}
	return makeSecret(secretValue{text: s, key: key, whsec: true}), nil
}

// NewSecret generates a fresh endpoint secret: 32 random bytes from
// crypto/rand, encoded as "whsec_<base64>". The server uses it when a webhook
// endpoint is created or its secret is rotated.
func NewSecret() (Secret, error) { return NewSecretOfSize(32) }

// NewSecretOfSize generates an endpoint secret of n random bytes from crypto/rand, encoded as
// "whsec_<base64>": what ParseEndpointSecret accepts when n is MinSecretBytes to MaxSecretBytes, which
// it must be.
func NewSecretOfSize(n int) (Secret, error) {
	if n < MinSecretBytes || n > MaxSecretBytes {
		return Secret{}, fmt.Errorf("webhook: a secret of %d bytes was asked for; an endpoint secret holds %d to %d", n, MinSecretBytes, MaxSecretBytes)
	}
	key := make([]byte, n)
	if _, err := rand.Read(key); err != nil {
		return Secret{}, fmt.Errorf("webhook: generating secret: %w", err)
	}
	text := whsecPrefix + base64.StdEncoding.EncodeToString(key)
	return makeSecret(secretValue{text: text, key: key, whsec: true}), nil
}

// Reveal returns the full secret text as given to ParseSecret or generated by
// NewSecret. It is the one deliberate way to get the secret out, for example
// so the server can show a newly created endpoint secret to the user once.
func (s Secret) Reveal() string {
	v, _ := s.value()
	return v.text
}

// String returns a redacted form ("whsec_****" or "****"), so that a Secret
// that ends up in a log line or error message identifies its kind without
// leaking it.
func (s Secret) String() string {
	v, ok := s.value()
	switch {
	case !ok:
		return "<unset>"
	case v.whsec:
		return whsecPrefix + "****"
	default:
		return "****"
	}
}

// GoString returns a redacted form for %#v, which would otherwise print the
// struct's contents.
func (s Secret) GoString() string {
	return "webhook.Secret(" + s.String() + ")"
}

// Format makes every fmt verb (including %x, %d and %+v, which do not all
// consult String) print the redacted form.
func (s Secret) Format(f fmt.State, verb rune) {
	redact.Format(s, f, verb)
}

// LogValue makes log/slog record the redacted form.
func (s Secret) LogValue() slog.Value {
	return slog.StringValue(s.String())
}

// Sign returns the webhook-signature header value for one delivery attempt:
// one "v1,<base64>" signature per secret, space separated. Signing with more
// than one secret is how secret rotation works without downtime: receivers
// accept the delivery if any signature matches any secret they hold.
// Zero (unset) Secrets are skipped; with no usable secret the result is "".
//
// id must be the event id (the same on every retry) and ts the time of this
// attempt; neither should contain user-controlled text.
func Sign(id string, ts time.Time, body []byte, secrets ...Secret) string {
	var tsBuf [20]byte
	tsText := strconv.AppendInt(tsBuf[:0], ts.Unix(), 10)
	var b strings.Builder
	b.Grow(len(secrets) * (len(versionV1) + 1 + encodedMACSz + 1))
	var enc [encodedMACSz]byte
	for _, s := range secrets {
		v, ok := s.value()
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		mac := computeMAC(v.key, id, tsText, body)
		base64.StdEncoding.Encode(enc[:], mac[:])
		b.WriteString(versionV1)
		b.WriteByte(',')
		b.Write(enc[:])
	}
	return b.String()
}

// SetHeaders sets webhook-id, webhook-timestamp and webhook-signature on h,
// so that the sender cannot forget one or let the signed timestamp differ
// from the sent one.
func SetHeaders(h http.Header, id string, ts time.Time, body []byte, secrets ...Secret) {
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, Sign(id, ts, body, secrets...))
}

// Signatures lists the v1 entries ("v1,<base64>") of a webhook-signature
// header value, ignoring other versions and extra whitespace. It exists so
// tests can inspect a delivery, e.g. assert that after a secret rotation it
// carries two signatures, and verify each one on its own (every entry is
// itself a valid header value).
func Signatures(header string) []string {
	var out []string
	for f := range strings.FieldsSeq(header) {
		if version, sig, ok := strings.Cut(f, ","); ok && version == versionV1 && sig != "" {
			out = append(out, f)
		}
	}
	return out
}

// Verifier checks incoming deliveries. It is a struct rather than a function
// so that the secrets (several during a rotation), the replay window and the
// clock are configured once; the clock is injectable so tests can check the
// replay window deterministically. The zero Tolerance and nil Now mean
// DefaultTolerance and time.Now.
type Verifier struct {
	// Secrets are all secrets currently valid for the endpoint. A delivery
	// is accepted if any of its v1 signatures matches any of them.
	Secrets []Secret
	// Tolerance is the maximum difference between webhook-timestamp and Now
	// in either direction. Zero or negative means DefaultTolerance.
	Tolerance time.Duration
	// Now returns the receiver's current time. Nil means time.Now.
	Now func() time.Time
}

// Verify checks the Standard Webhooks headers in h against body, which must be
// the raw request body exactly as received (before any JSON decoding).
// It returns nil if the delivery is authentic and recent, otherwise an error
// matching one of the package's sentinel errors with errors.Is.
// If webhook-signature occurs more than once in h, all values are considered.
func (v Verifier) Verify(h http.Header, body []byte) error {
	id, ts, sig := headerValues(h)
	_, err := v.verify(id, ts, sig, body, false)
	return err
}

// VerifyValues is Verify for callers that do not have an http.Header, e.g. a
// conformance test that recorded the three header values separately.
func (v Verifier) VerifyValues(id, timestamp, signatureHeader string, body []byte) error {
	_, err := v.verify(id, timestamp, signatureHeader, body, false)
	return err
}

// MatchingSecrets verifies the delivery like Verify and also reports which of
// v.Secrets (in their order) have a matching signature in it. It exists for
// the conformance suite's rotation check: right after a secret rotation a
// delivery must be signed with both the old and the new secret.
func (v Verifier) MatchingSecrets(h http.Header, body []byte) ([]Secret, error) {
	id, ts, sig := headerValues(h)
	return v.verify(id, ts, sig, body, true)
}

func headerValues(h http.Header) (id, timestamp, signature string) {
	sigs := h.Values(HeaderSignature)
	if len(sigs) == 1 {
		signature = sigs[0]
	} else {
		signature = strings.Join(sigs, " ")
	}
	return h.Get(HeaderID), h.Get(HeaderTimestamp), signature
}

// verify is Verify, VerifyValues and MatchingSecrets: with all, it goes on after the first match to
// report every matching secret. It makes the cheap checks first (checkDelivery), so that a
// misconfigured verifier or a malformed or stale delivery gets its own error instead of "no matching
// signature", and only then computes one HMAC per secret. The expected signatures and the matches of
// up to four secrets live in arrays on the stack: verification runs for every delivery.
func (v Verifier) verify(id, timestamp, sigHeader string, body []byte, all bool) ([]Secret, error) {
	usable, sec, err := v.checkDelivery(id, timestamp, sigHeader)
	if err != nil {
		return nil, err
	}
	var tsBuf [20]byte
	tsText := strconv.AppendInt(tsBuf[:0], sec, 10)
	var macBuf [4]secretMAC
	macs := macBuf[:0]
	if len(v.Secrets) > len(macBuf) {
		macs = make([]secretMAC, 0, len(v.Secrets))
	}
	macs = macs[:len(v.Secrets)]
	v.expectedMACs(macs, id, tsText, body)
	var matchedBuf [4]bool
	matched := matchedBuf[:0]
	if len(v.Secrets) > len(matchedBuf) {
		matched = make([]bool, 0, len(v.Secrets))
	}
	matched = matched[:len(v.Secrets)]

	nV1, found := matchSignatures(sigHeader, macs, matched, all)
	if !found {
		return nil, noMatchError(nV1, usable)
	}
	if !all {
		return nil, nil
	}
	var out []Secret
	for i, ok := range matched {
		if ok {
			out = append(out, v.Secrets[i])
		}
	}
	return out, nil
}

// checkDelivery makes the checks that need no HMAC, in the order a receiver would want them explained:
// a verifier without a usable secret is a configuration error (not a forged delivery), then a missing
// header, a timestamp that is not unix seconds, and one outside the tolerance. It returns the number
// of usable secrets, for the error message if no signature matches, and the timestamp.
func (v Verifier) checkDelivery(id, timestamp, sigHeader string) (usable int, sec int64, err error) {
	for _, s := range v.Secrets {
		if _, ok := s.value(); ok {
			usable++
		}
	}
	if usable == 0 {
		return 0, 0, fmt.Errorf("%w: the Verifier has no usable secret; set Verifier.Secrets to the endpoint's current signing secret(s) from ParseSecret", ErrNoSecrets)
	}

	for _, hv := range [...]struct{ name, value string }{
		{HeaderID, id}, {HeaderTimestamp, timestamp}, {HeaderSignature, sigHeader},
	} {
		if strings.TrimSpace(hv.value) == "" {
			return 0, 0, fmt.Errorf("%w %q: every Standard Webhooks delivery must carry %s, %s and %s; make sure the sender sets it and no proxy strips it",
				ErrMissingHeader, hv.name, HeaderID, HeaderTimestamp, HeaderSignature)
		}
	}

	sec, err = strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s %q is not an integer; it must be unix time in whole seconds (e.g. 1614265330), not RFC 3339 or milliseconds",
			ErrInvalidTimestamp, HeaderTimestamp, truncate(timestamp, 32))
	}
	if err := v.checkTime(sec); err != nil {
		return 0, 0, err
	}
	return usable, sec, nil
}

// secretMAC is the signature one secret gives a delivery; ok is false for an unusable secret, which
// matches nothing.
type secretMAC struct {
	mac [sha256.Size]byte
	ok  bool
}

// expectedMACs fills macs (one per secret of v, in order) with each secret's signature of the delivery.
// The caller owns the slice so that it can keep it on the stack.
func (v Verifier) expectedMACs(macs []secretMAC, id string, tsText, body []byte) {
	for i, s := range v.Secrets {
		if sv, ok := s.value(); ok {
			macs[i].mac, macs[i].ok = computeMAC(sv.key, id, tsText, body), true
		}
	}
}

// matchSignatures compares each v1 signature of the webhook-signature header with the expected
// signatures and marks the secrets that match in matched; without all it stops at the first match.
// Other versions (v1a) and junk are skipped, as the specification requires for forward compatibility;
// a signature is decoded into a fixed array, since it is attacker-controlled and must not size an
// allocation. It returns how many v1 signatures the header had, for the error message, and whether
// any matched.
func matchSignatures(sigHeader string, macs []secretMAC, matched []bool, all bool) (nV1 int, found bool) {
	for f := range strings.FieldsSeq(sigHeader) {
		version, sig, ok := strings.Cut(f, ",")
		if !ok || version != versionV1 || sig == "" {
			continue // other versions (e.g. v1a) and junk are ignored
		}
		nV1++
		if len(sig) != encodedMACSz {
			continue
		}
		var src [encodedMACSz]byte
		copy(src[:], sig)
		var got [sha256.Size + 1]byte
		n, err := base64.StdEncoding.Decode(got[:], src[:])
		if err != nil || n != sha256.Size {
			continue
		}
		for i := range macs {
			if macs[i].ok && !matched[i] && hmac.Equal(got[:n], macs[i].mac[:]) {
				matched[i], found = true, true
				if !all {
					return nV1, true
				}
			}
		}
	}
	return nV1, found
}

// noMatchError explains a delivery none of whose signatures matched: a header without v1 signatures is
// a sender problem, a mismatch usually a wrong secret or a body changed before verification.
func noMatchError(nV1, usable int) error {
	if nV1 == 0 {
		return fmt.Errorf("%w: %s contains no v1 signature; this receiver verifies only v1 (HMAC-SHA256) signatures, so the sender must include one",
			ErrNoMatchingSignature, HeaderSignature)
	}
	return fmt.Errorf("%w: none of the %d v1 signature(s) in %s matches any of the %d configured secret(s); check the receiver uses the endpoint's current signing secret and verifies the body byte-for-byte as received (before JSON parsing), and that %s/%s were not altered",
		ErrNoMatchingSignature, nV1, HeaderSignature, usable, HeaderID, HeaderTimestamp)
}

func (v Verifier) checkTime(sec int64) error {
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	n, t := now(), time.Unix(sec, 0)
	if d := n.Sub(t); d > tol {
		return fmt.Errorf("%w: %s %d is %s before the receiver's clock, beyond the %s tolerance; reject it as a possible replay (a retry carries a fresh timestamp), or check both clocks (NTP)",
			ErrTimestampTooOld, HeaderTimestamp, sec, d.Truncate(time.Second), tol)
	}
	if d := t.Sub(n); d > tol {
		return fmt.Errorf("%w: %s %d is %s after the receiver's clock, beyond the %s tolerance; check the sender's and receiver's clocks (NTP) and that the timestamp is in seconds, not milliseconds",
			ErrTimestampTooNew, HeaderTimestamp, sec, d.Truncate(time.Second), tol)
	}
	return nil
}

// computeMAC returns HMAC-SHA256(key, id "." ts "." body).
func computeMAC(key []byte, id string, ts, body []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, key)
	_, _ = io.WriteString(m, id)
	_, _ = m.Write([]byte{'.'})
	_, _ = m.Write(ts)
	_, _ = m.Write([]byte{'.'})
	_, _ = m.Write(body)
	var out [sha256.Size]byte
	m.Sum(out[:0])
	return out
}

// truncate shortens attacker-controlled text before it is quoted into an
// error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
