package variance

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// state is one variant sandbox's: the ids it translated, the requests it has running, and what it
// read from the document. Options makes one per sandbox.
type state struct {
	v      Variant
	ids    *translator
	fields fields
	// absent are the path templates of the extensions the variant leaves out.
	absent [][]string

	// leftOutRef are the sandbox's reference-data ids a ReferenceSubset variant does not support, and
	// leftOutCodes the country codes among them; unsupportedCode is a country code the sandbox does not
	// know, which stands for them in a request. All are filled once, by middleware.
	leftOutRef      map[string]bool
	leftOutCodes    map[string]bool
	unsupportedCode string
	// limitMax is the largest limit the document lets listEvents ask for.
	limitMax int
	// reasonMax is the most characters a field error's reason may have: a reworded reason, longer
	// than the sandbox's, is cut to it.
	reasonMax int

	// requests counts the requests that came over the network, for RateLimitEvery.
	requests atomic.Int64
	// server is the sandbox, for its merchants' keys (NewEventTypes signs with them); client sends the
	// events of new types.
	server *sandbox.Server
	client *http.Client

	mu       sync.Mutex
	inFlight map[string]bool   // merchant public key and Idempotency-Key of the POSTs running
	secrets  map[string]string // endpoint secrets the sandbox generated -> the variant's
}

func newState(v Variant) *state {
	f, err := documentFields()
	if err != nil {
		// The embedded document has these fields (TestDocumentFields); only a broken build lacks them.
		panic(err)
	}
	st := &state{v: v, ids: newTranslator(v), fields: f, inFlight: map[string]bool{}, secrets: map[string]string{},
		leftOutRef: map[string]bool{}, leftOutCodes: map[string]bool{},
		client: &http.Client{Timeout: api.WebhookDeliveryTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	st.absent, err = absentTemplates(v)
	if err != nil {
		panic(err)
	}
	if st.limitMax, err = eventLimitMax(); err != nil {
		panic(err)
	}
	if st.reasonMax, err = documentBound(reasonMaxLength); err != nil {
		panic(err)
	}
	return st
}

// reasonMaxLength points at the maxLength of a field error's reason.
const reasonMaxLength = "#/components/schemas/FieldError/properties/reason/maxLength"

// documentBound reads a bound (a maxLength, a maxItems) from the embedded document.
func documentBound(pointer string) (int, error) {
	spec, err := openapi.Default()
	if err != nil {
		return 0, fmt.Errorf("variance: load the embedded document: %w", err)
	}
	n, err := spec.Bound(pointer)
	if err != nil {
		return 0, fmt.Errorf("variance: %w", err)
	}
	return n, nil
}

// eventLimitMax reads the maximum of listEvents' limit from the document.
func eventLimitMax() (int, error) {
	spec, err := openapi.Default()
	if err != nil {
		return 0, fmt.Errorf("variance: load the embedded document: %w", err)
	}
	op, ok := spec.Operation(api.OpListEvents().ID)
	if !ok {
		return 0, fmt.Errorf("variance: the document has no operation %s", api.OpListEvents().ID)
	}
	if maximum, ok := op.ParameterMaximum(limitParam); ok {
		return int(maximum), nil
	}
	return 0, fmt.Errorf("variance: %s has no %s parameter with a maximum", api.OpListEvents().ID, limitParam)
}

// absentTemplates returns the path templates, split at "/", of the operations of each extension the
// variant leaves out. An extension is the set of operations of one tag that the document marks
// x-malipo-extension; the webhook-endpoint extension is the tag of createWebhookEndpoint, the event
// log that of listEvents.
func absentTemplates(v Variant) ([][]string, error) {
	spec, err := openapi.Default()
	if err != nil {
		return nil, fmt.Errorf("variance: load the embedded document: %w", err)
	}
	tagOf := map[string]string{}
	for _, op := range spec.Operations() {
		if len(op.Tags) > 0 {
			tagOf[op.ID] = op.Tags[0]
		}
	}
	leftOut := map[string]bool{}
	if !v.WebhookEndpoints {
		leftOut[tagOf[api.OpCreateWebhookEndpoint().ID]] = true
	}
	if !v.EventLog {
		leftOut[tagOf[api.OpListEvents().ID]] = true
	}
	var out [][]string
	for _, op := range api.Operations() {
		if op.Extension && leftOut[tagOf[op.ID]] {
			out = append(out, strings.Split(op.Path, "/"))
		}
	}
	return out, nil
}

// losesAck reports whether the variant loses the acknowledgement of an event's first attempt: about
// half the events, the same ones for a seed.
func (st *state) losesAck(eventID string) bool {
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%d\x00%s", st.v.Seed, eventID)
	return h.Sum64()%2 == 0
}
