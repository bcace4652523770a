package variance

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// The translator gives every id the sandbox makes a name in the variant's format, and back: responses
// and webhooks carry the variant's names, requests are read with the sandbox's. Its maps hold every id
// a client has seen, so they grow with the sandbox's history, as the sandbox's own store does.

// kind is what an id names; it picks the format.
type kind int

const (
	kindPayment kind = iota
	kindPayout
	kindEndpoint
	kindEvent
	kindDeliveryFailure
	kindCountry
	kindBank
	kindCursor
	kindReference // a merchant reference the service generated
)

// sandboxObjectID matches the ids the sandbox makes for objects (sandbox/ids.go: a prefix and 16 hex
// digits). TestVariantSandbox fails if the sandbox changes them and they are no longer translated (its
// payouts' ids no longer come out as the variant's UUIDs).
var sandboxObjectID = regexp.MustCompile(`^(pay|po|we|evt|df)_[0-9a-f]{16}$`)

// sandboxObjectIDs finds them inside a text (an error's message), with the references the sandbox
// generates (`ref_` and 16 hex digits), which outText translates when the variant generated them, and
// with the ids a request named by the sandbox's names and the variant made unknown (hidePrefix).
var sandboxObjectIDs = regexp.MustCompile(`\b(` + hidePrefix + `)?(pay|po|we|evt|df|ref)_[0-9a-f]{16}\b`)

// hidePrefix makes an id unknown to the sandbox while keeping it within ObjectId's pattern, and no
// longer a word of its own to sandboxObjectIDs.
const hidePrefix = "zz"

var prefixKinds = map[string]kind{"pay": kindPayment, "po": kindPayout, "we": kindEndpoint, "evt": kindEvent, "df": kindDeliveryFailure}

// tags name each kind in the tagged and long formats.
var tags = map[kind]string{kindPayment: "PAY", kindPayout: "PO", kindEndpoint: "WE", kindEvent: "EVT", kindDeliveryFailure: "DF",
	kindCountry: "CTRY", kindBank: "BANK", kindCursor: "CUR", kindReference: "REF"}

type translator struct {
	v       Variant
	seed    [8]byte
	mu      sync.Mutex
	foreign map[string]string // sandbox id -> the variant's
	own     map[string]string // the variant's id -> sandbox id
	// reference maps the sandbox's reference-data ids to their kind, and codes them for IDCoded
	// (`ctry_zm` -> `country:ZM`); the middleware fills it from the sandbox once.
	reference map[string]kind
	coded     map[string]string
	// generated holds the merchant references the sandbox generated: only those are the service's to
	// name, never one the merchant chose.
	generated map[string]bool
}

func newTranslator(v Variant) *translator {
	t := &translator{v: v, foreign: map[string]string{}, own: map[string]string{}, reference: map[string]kind{}, coded: map[string]string{},
		generated: map[string]bool{}}
	binary.BigEndian.PutUint64(t.seed[:], uint64(v.Seed))
	return t
}

// addReference makes a reference-data id known, with the code IDCoded names it by.
func (t *translator) addReference(id string, k kind, code string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reference[id], t.coded[id] = k, code
}

// objectKind says whether id is one the sandbox made, and of which kind.
func (t *translator) objectKind(id string) (kind, bool) {
	if sandboxObjectID.MatchString(id) {
		return prefixKinds[id[:strings.IndexByte(id, '_')]], true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k, ok := t.reference[id]
	return k, ok
}

// out is id as the variant names it, when it is an id the sandbox made; else id itself.
func (t *translator) out(id string) string {
	k, ok := t.objectKind(id)
	if !ok {
		return id
	}
	return t.name(id, k)
}

// addGenerated makes a merchant reference the sandbox generated known.
func (t *translator) addGenerated(ref string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.generated[ref] = true
}

// outReference is a merchant reference as the variant writes it: its own name for one the sandbox
// generated, the merchant's own unchanged.
func (t *translator) outReference(ref string) string {
	t.mu.Lock()
	generated := t.generated[ref]
	t.mu.Unlock()
	if !generated {
		return ref
	}
	return t.name(ref, kindReference)
}

// outCursor is a sandbox cursor as the variant writes it.
func (t *translator) outCursor(c string) string { return t.name(c, kindCursor) }

// in is a name the variant gave, as the sandbox knows it; anything else is returned unchanged (an
// unknown id stays unknown).
func (t *translator) in(s string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.own[s]
	return id, ok
}

// outText replaces the sandbox's object ids inside a text, so that an error's message names objects
// as the client knows them.
func (t *translator) outText(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	return sandboxObjectIDs.ReplaceAllStringFunc(s, func(id string) string {
		switch {
		case strings.HasPrefix(id, hidePrefix):
			return strings.TrimPrefix(id, hidePrefix) // as the client sent it
		case strings.HasPrefix(id, "ref_"):
			return t.outReference(id)
		}
		return t.out(id)
	})
}

// hide returns the sandbox's own name of an id as the variant reads it: unknown when the variant names
// that kind otherwise (a request that names it, from the document's examples or the dashboard's page,
// finds nothing, as it would at another implementation), else unchanged.
func (t *translator) hide(s string) (string, bool) {
	k, ok := t.objectKind(s)
	if !ok || t.formatOf(k) == IDAsSandbox {
		return "", false
	}
	return hidePrefix + s, true
}

// name returns the variant's name of a sandbox id of kind k, making it on first use. Names are derived
// from a hash of the seed and the id, and a name already taken is derived again with a counter.
func (t *translator) name(id string, k kind) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.foreign[id]; ok {
		return n
	}
	for salt := range 256 {
		h := sha256.Sum256(append(append(t.seed[:], byte(salt), byte(k)), id...))
		n := t.format(id, k, h, byte(salt))
		if n == id {
			break // as the sandbox: nothing to translate
		}
		if _, taken := t.own[n]; !taken {
			t.foreign[id], t.own[n] = n, id
			return n
		}
	}
	t.foreign[id] = id // as the sandbox, or (never seen) no free name in 256 tries
	return id
}

// format writes a name of kind k from the hash h. The caller holds t.mu.
func (t *translator) format(id string, k kind, h [32]byte, salt byte) string {
	if k == kindCursor {
		switch t.v.Cursors {
		case CursorOpaque:
			return base64.RawURLEncoding.EncodeToString(h[:])
		case CursorLong:
			return stretch("c"+base64.RawURLEncoding.EncodeToString(h[:]), h, 128, base64.RawURLEncoding.EncodeToString)
		}
		return id
	}
	f := t.formatOf(k)
	switch f {
	case IDUUID:
		u := h[:16]
		u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
		x := hex.EncodeToString(u)
		return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
	case IDTagged:
		return tags[k] + ":2026." + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:10])
	case IDLong:
		n := 128 // ObjectId's maxLength
		if k == kindReference {
			n = 64 // MerchantReference's
		}
		return stretch(strings.ToLower(tags[k])+"-", h, n, hex.EncodeToString)
	case IDNumeric:
		n := binary.BigEndian.Uint64(h[:8])
		if k == kindCountry || k == kindBank {
			return itoa(10_000 + n%90_000) // five digits
		}
		return itoa(1_000_000_000_000_000_000 + n%8_000_000_000_000_000_000)
	case IDMixedCase:
		return base62(h[:], 22)
	case IDOutsidePattern:
		return "~" + strings.ToLower(tags[k]) + hex.EncodeToString(h[:8]) + "~"
	case IDCoded:
		code := t.coded[id]
		if code == "" || salt > 0 {
			return tags[k] + ":" + strings.ToUpper(hex.EncodeToString(h[:4]))
		}
		if k == kindCountry {
			return "country:" + code
		}
		return code
	}
	return id
}

func (t *translator) formatOf(k kind) IDFormat {
	switch k {
	case kindPayment:
		return t.v.IDs.Payment
	case kindPayout:
		return t.v.IDs.Payout
	case kindEndpoint:
		return t.v.IDs.Endpoint
	case kindEvent:
		return t.v.IDs.Event
	case kindDeliveryFailure:
		return t.v.IDs.DeliveryFailure
	case kindReference:
		return t.v.References
	}
	return t.v.ReferenceIDs
}

// stretch writes prefix and then encodings of successive hashes of h until the name is n characters.
func stretch(prefix string, h [32]byte, n int, enc func([]byte) string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for b.Len() < n {
		b.WriteString(enc(h[:]))
		h = sha256.Sum256(h[:])
	}
	return b.String()[:n]
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62 writes n base62 characters from the bytes of h, each from a byte (a slight bias is harmless).
func base62(h []byte, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = base62Digits[int(h[i%len(h)]+byte(i/len(h)))%len(base62Digits)]
	}
	return string(out)
}
