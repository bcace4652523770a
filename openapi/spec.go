// Package openapi serves the Malipo v1 contract (malipo.yaml, embedded) to the rest of the code: the
// document itself, an index of its operations and webhooks, the test values and error table it declares,
// and validation of HTTP requests, responses and webhook deliveries against it.
//
// Every other package derives its knowledge of the API from here rather than restating it, so a change
// to malipo.yaml is seen by the sandbox, the client, the contract suite and the provider at once.
//
// Validation has two stages. Checks compiled from the document (see fastpath.go and package
// internal/schemacheck) accept a valid message in a few microseconds; a message they do not accept goes to
// libopenapi-validator, which decides and explains it with violations. The checks never accept what the
// validator rejects (the tests compare the two on every example and on thousands of mutations), so the
// verdicts and violations are the validator's either way; WithoutFastPath turns the first stage off.
package openapi

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

//go:embed malipo.yaml
var embeddedSpec []byte

// YAML returns a copy of the embedded malipo.yaml, for printing (`malipo spec`) and serving.
func YAML() []byte { return bytes.Clone(embeddedSpec) }

// Spec is a loaded, indexed and validating view of an OpenAPI document. It is immutable after Load and
// safe for concurrent use; build it once and share it, since loading costs tens of milliseconds.
type Spec struct {
	source     []byte // the document as given, for Says (pointer.go)
	tree       treeOnce
	doc        libopenapi.Document
	model      *v3.Document
	validator  validator.Validator
	operations []*Operation
	byID       map[string]*Operation
	webhooks   map[string]*Operation
	schemes    map[string]string // security scheme name -> header name (apiKey in header)
	fastGaps   []string          // parts of the document the fast path leaves to the validator, and why
	fastPath   bool              // accept what the fast checks accept (see fastpath.go)
}

// Operation describes one operation or webhook of the document, as the validators and the code that
// derives checks from the document need it.
type Operation struct {
	// ID is the operationId.
	ID string
	// Method is the upper-case HTTP method.
	Method string
	// Path is the path template (`/v1/payment/payouts/{payout_id}`); for a webhook, its event type.
	Path string
	// Webhook is true for entries of the document's top-level `webhooks`.
	Webhook bool
	// SandboxOnly is true for operations of a tag marked x-malipo-sandbox-only (the sandbox's
	// controls): a production implementation does not have them, so nothing checks that it does.
	SandboxOnly bool
	// KeyHeaders lists, for each alternative security requirement, the key headers it needs
	// (`[["public-key","secret-key"]]`). Empty means no authentication.
	KeyHeaders [][]string
	// Responses lists the documented status codes ("201", "400", "4XX").
	Responses []string
	// Op is the libopenapi operation, for callers that derive more from the document.
	Op *v3.Operation

	pathItem *v3.PathItem
	location string // JSON pointer of the operation in the document, "#/paths/~1v1~1.../post"
	fast     *fastPlan
}

// Option configures Load.
type Option func(*options)

type options struct {
	logger     *slog.Logger
	noFastPath bool
}

// WithLogger sends libopenapi's own diagnostics to logger instead of discarding them.
func WithLogger(logger *slog.Logger) Option { return func(o *options) { o.logger = logger } }

// WithoutFastPath shows every message to libopenapi-validator. By default a message is first checked by
// schemas compiled for speed and goes to the validator only when they find it invalid, which gives the
// same verdicts and the same violations at a fraction of the cost for valid messages. The option exists
// to compare the two (the tests do) and to rule the fast path out when diagnosing. The checks the
// validator lacks (empty or null response bodies, optional response headers) are made either way.
func WithoutFastPath() Option { return func(o *options) { o.noFastPath = true } }

var defaultSpec = sync.OnceValues(func() (*Spec, error) { return Load(embeddedSpec) })

// Default returns the embedded contract, loaded on first use and shared afterwards. It is the only
// package-level state and it is never modified after it is built.
func Default() (*Spec, error) { return defaultSpec() }

// Load parses and indexes an OpenAPI 3.1 document and builds its validator. Tests load altered copies
// of the embedded document through it; everything else should use Default.
func Load(spec []byte, opts ...Option) (*Spec, error) {
	o := options{logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	doc, err := libopenapi.NewDocumentWithConfiguration(spec, &datamodel.DocumentConfiguration{Logger: o.logger})
	if err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	// The first BuildV3Model error must be checked: a second call returns the broken model silently.
	built, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("build OpenAPI model: %w", err)
	}
	s := &Spec{
		source:   bytes.Clone(spec),
		doc:      doc,
		model:    &built.Model,
		byID:     map[string]*Operation{},
		webhooks: map[string]*Operation{},
		schemes:  map[string]string{},
	}
	if err := s.index(); err != nil {
		return nil, err
	}
	s.validator = validator.NewValidatorFromV3Model(s.model,
		config.WithRegexCache(&sync.Map{}),
		config.WithLogger(o.logger),
		// Key headers are checked by checkSecurity, which names the missing header in a Violation.
		config.WithoutSecurityValidation(),
	)
	// The checks are compiled either way: ValidateResponse uses them for what the validator lacks.
	if err := s.compileFastPaths(spec, o.logger); err != nil {
		return nil, fmt.Errorf("compile schema checks: %w", err)
	}
	s.fastPath = !o.noFastPath
	s.warmWebhooks()
	return s, nil
}

// warmWebhooks compiles each webhook's body schema once, before the Spec is shared. The validator
// pre-compiles the schemas of `paths` but not of `webhooks`, and compiling the same schema from several
// goroutines at once races inside libopenapi's renderer.
func (s *Spec) warmWebhooks() {
	for _, t := range s.EventTypes() {
		_ = s.ValidateWebhook(t, http.Header{"Content-Type": {jsonMediaType}}, []byte("{}"))
	}
}

// Model returns the libopenapi model, for code that derives checks or data from the document.
func (s *Spec) Model() *v3.Document { return s.model }

// Operations returns every path operation, in document order (webhooks are not included).
func (s *Spec) Operations() []*Operation { return append([]*Operation(nil), s.operations...) }

// Operation returns the path operation or webhook with the given operationId.
func (s *Spec) Operation(id string) (*Operation, bool) {
	op, ok := s.byID[id]
	return op, ok
}

// EventTypes returns the event types declared under `webhooks`, sorted.
func (s *Spec) EventTypes() []string {
	types := make([]string, 0, len(s.webhooks))
	for t := range s.webhooks {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// Webhook returns the webhook entry of an event type.
func (s *Spec) Webhook(eventType string) (*Operation, bool) {
	op, ok := s.webhooks[eventType]
	return op, ok
}

// FindOperation returns the operation a request is routed to by the document, or false when no path and
// method of the document match it.
func (s *Spec) FindOperation(r *http.Request) (*Operation, bool) {
	for _, op := range s.operations {
		if op.Method == r.Method && matchTemplate(op.Path, r.URL.Path) {
			return op, true
		}
	}
	return nil, false
}

// Route is the document's routing, the only implementation of it: the operation for method and path
// with its path parameters by name; when the path exists with other methods only, those methods (for a
// 405 and its Allow header).
func (s *Spec) Route(method, path string) (op *Operation, params map[string]string, allowed []string) {
	for _, o := range s.operations {
		if !matchTemplate(o.Path, path) {
			continue
		}
		if o.Method == method {
			return o, bindTemplate(o.Path, path), nil
		}
		allowed = append(allowed, o.Method)
	}
	return nil, nil, allowed
}

func (s *Spec) index() error {
	if s.model.Components != nil && s.model.Components.SecuritySchemes != nil {
		for name, scheme := range s.model.Components.SecuritySchemes.FromOldest() {
			if scheme.Type == "apiKey" && scheme.In == "header" {
				s.schemes[name] = strings.ToLower(scheme.Name)
			}
		}
	}
	if s.model.Paths != nil {
		for path, item := range s.model.Paths.PathItems.FromOldest() {
			for method, op := range item.GetOperations().FromOldest() {
				if err := s.add(path, strings.ToUpper(method), op, item, false,
					"#/paths/"+escapePointer(path)+"/"+strings.ToLower(method)); err != nil {
					return err
				}
			}
		}
	}
	if s.model.Webhooks != nil {
		for name, item := range s.model.Webhooks.FromOldest() {
			if item.Post == nil {
				return fmt.Errorf("webhook %q: only POST deliveries are supported", name)
			}
			if err := s.add(name, http.MethodPost, item.Post, item, true, "#/webhooks/"+escapePointer(name)+"/post"); err != nil {
				return err
			}
		}
	}
	return nil
}

// Documents reports whether the operation documents status, directly or by its range ("4XX"), as
// api.Operation.Documents does for the generated table; this one answers for the loaded document,
// which a sandbox serving another copy (WithSpec) routes by.
func (o *Operation) Documents(status int) bool {
	code := strconv.Itoa(status)
	return slices.Contains(o.Responses, code) || slices.Contains(o.Responses, code[:1]+"XX")
}

// taggedWith reports whether one of op's tags is marked with the extension key set to true.
func (s *Spec) taggedWith(op *v3.Operation, key string) bool {
	for _, tag := range s.model.Tags {
		if tag == nil || tag.Extensions == nil || !slices.Contains(op.Tags, tag.Name) {
			continue
		}
		if node, ok := tag.Extensions.Get(key); ok && node != nil && node.Value == "true" {
			return true
		}
	}
	return false
}

func (s *Spec) add(path, method string, op *v3.Operation, item *v3.PathItem, webhook bool, location string) error {
	if op.OperationId == "" {
		return fmt.Errorf("%s %s has no operationId: every operation needs one", method, path)
	}
	if _, dup := s.byID[op.OperationId]; dup {
		return fmt.Errorf("operationId %q is used twice", op.OperationId)
	}
	o := &Operation{ID: op.OperationId, Method: method, Path: path, Webhook: webhook, Op: op, pathItem: item, location: location,
		SandboxOnly: s.taggedWith(op, "x-malipo-sandbox-only")}
	reqs := s.model.Security
	if op.Security != nil {
		reqs = op.Security
	}
	for _, req := range reqs {
		if req == nil || req.Requirements == nil {
			continue
		}
		var headers []string
		for name := range req.Requirements.KeysFromOldest() {
			h, ok := s.schemes[name]
			if !ok {
				return fmt.Errorf("operation %s: security scheme %q is not an apiKey header scheme", o.ID, name)
			}
			headers = append(headers, h)
		}
		if len(headers) > 0 {
			o.KeyHeaders = append(o.KeyHeaders, headers)
		}
	}
	if op.Responses != nil && op.Responses.Codes != nil {
		for code := range op.Responses.Codes.KeysFromOldest() {
			o.Responses = append(o.Responses, code)
		}
	}
	s.byID[o.ID] = o
	if webhook {
		s.webhooks[path] = o
	} else {
		s.operations = append(s.operations, o)
	}
	return nil
}

// matchTemplate reports whether a concrete path matches a template with `{param}` segments. Leading
// and trailing slashes are ignored. It runs for every validated message, so it does not allocate.
func matchTemplate(template, path string) bool {
	t, p := strings.Trim(template, "/"), strings.Trim(path, "/")
	for {
		tseg, trest, tmore := strings.Cut(t, "/")
		pseg, prest, pmore := strings.Cut(p, "/")
		if strings.HasPrefix(tseg, "{") && strings.HasSuffix(tseg, "}") {
			if pseg == "" {
				return false
			}
		} else if tseg != pseg {
			return false
		}
		if tmore != pmore {
			return false
		}
		if !tmore {
			return true
		}
		t, p = trest, prest
	}
}

// bindTemplate returns the path parameters of a path that matchTemplate matched, by name. It allocates
// only the map, and only for a template with parameters.
func bindTemplate(template, path string) map[string]string {
	var params map[string]string
	t, p := strings.Trim(template, "/"), strings.Trim(path, "/")
	for t != "" {
		var tseg, pseg string
		tseg, t, _ = strings.Cut(t, "/")
		pseg, p, _ = strings.Cut(p, "/")
		if strings.HasPrefix(tseg, "{") && strings.HasSuffix(tseg, "}") {
			if params == nil {
				params = map[string]string{}
			}
			params[tseg[1:len(tseg)-1]] = pseg
		}
	}
	return params
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// readBody reads a request or response body and puts an identical reader back, so that callers can
// still read it after validation.
func readBody(body *io.ReadCloser) ([]byte, error) {
	if *body == nil || *body == http.NoBody {
		return nil, nil
	}
	data, err := io.ReadAll(*body)
	_ = (*body).Close()
	*body = io.NopCloser(bytes.NewReader(data))
	if err != nil {
		return data, fmt.Errorf("read body: %w", err)
	}
	return data, nil
}

// errNoSuchWebhook is returned for an event type the document does not declare.
var errNoSuchWebhook = errors.New("no such webhook")
