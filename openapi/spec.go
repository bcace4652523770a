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
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

//go:embed malipo.yaml
var embeddedSpec []byte

// EmbeddedPath is where the embedded document is in this repository: the file the reports of a run
// against it cite with a line (Spec.Path, Spec.Line), which CI systems turn into annotations on it.
const EmbeddedPath = "openapi/malipo.yaml"

// YAML returns a copy of the embedded malipo.yaml, for printing (`malipo spec`) and serving.
func YAML() []byte { return bytes.Clone(embeddedSpec) }

// Spec is a loaded, indexed and validating view of an OpenAPI document. It is immutable after Load and
// safe for concurrent use; build it once and share it, since loading costs tens of milliseconds.
type Spec struct {
	source []byte // the document as given, for Says (pointer.go)
	path   string // the file it was read from, as WithPath gave it; "" when unknown
	tree   treeOnce
	lib    any // a *libModel; see libModel for why it is not typed
	// title and version are info's, copied at Load: a method that read them from the model would be
	// inlined into its callers, and with it the libopenapi types libModel keeps out of them.
	title, version string
	operations     []*Operation
	byID           map[string]*Operation
	webhooks       map[string]*Operation
	schemes        map[string]string                // security scheme name -> header name (apiKey in header)
	fastGaps       []string                         // parts of the document the fast path leaves to the validator, and why
	fastPath       bool                             // accept what the fast checks accept (see fastpath.go)
	reword         func(*liberrors.ValidationError) // tests only (options.reword)
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
	// Tags are the operation's tags, in document order.
	Tags []string
	// ExtensionTags are the operation's tags that the document marks x-malipo-extension: each names one
	// extension of the contract (webhook endpoints, the event log), which a target may leave out.
	ExtensionTags []string
	// HasBody is true when the operation declares a request body; BodyRequired when that body is required.
	HasBody, BodyRequired bool
	op                    any    // a *v3.Operation, read through OperationModel; see libModel for why it is not typed
	pathItem              any    // a *v3.PathItem
	location              string // JSON pointer of the operation in the document, "#/paths/~1v1~1.../post"
	fast                  *fastPlan
}

// Option configures Load.
type Option func(*options)

type options struct {
	path       string
	logger     *slog.Logger
	noFastPath bool
	reword     func(*liberrors.ValidationError) // tests only: proves no pointer is read out of a message
}

// WithLogger sends libopenapi's own diagnostics to logger instead of discarding them.
func WithLogger(logger *slog.Logger) Option { return func(o *options) { o.logger = logger } }

// WithPath names the file the document was read from, as the user gave it (`--spec FILE`): reports cite
// the rules' lines in it (Spec.Path).
func WithPath(path string) Option { return func(o *options) { o.path = path } }

// WithoutFastPath shows every message to libopenapi-validator. By default a message is first checked by
// schemas compiled for speed and goes to the validator only when they find it invalid, which gives the
// same verdicts and the same violations at a fraction of the cost for valid messages. The option exists
// to compare the two (the tests do) and to rule the fast path out when diagnosing. The checks the
// validator lacks (empty or null response bodies, optional response headers) are made either way.
func WithoutFastPath() Option { return func(o *options) { o.noFastPath = true } }

var defaultSpec = sync.OnceValues(func() (*Spec, error) { return Load(embeddedSpec, WithPath(EmbeddedPath)) })

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
	lib := &libModel{doc: doc, model: &built.Model}
	s := &Spec{
		source:   bytes.Clone(spec),
		path:     o.path,
		lib:      lib,
		byID:     map[string]*Operation{},
		webhooks: map[string]*Operation{},
		schemes:  map[string]string{},
	}
	if info := built.Model.Info; info != nil {
		s.title, s.version = info.Title, info.Version
	}
	if err := index(s, lib.model); err != nil {
		return nil, err
	}
	lib.validator = validator.NewValidatorFromV3Model(lib.model,
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
	s.reword = o.reword
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

// libModel is what libopenapi built from the document: the document, its high-level model and the
// validator. Spec and Operation hold it, and the libopenapi operation and path item, as `any` and no
// exported method or field of theirs names a libopenapi type. The reason is compile time: libopenapi's
// models are made of generic ordered maps, and Go compiles every method of every generic type a package's
// types reach, in each package that reads those types. When Spec named libopenapi types, every package
// that merely touched a *Spec (the runner, the reports, the sandbox, the CLI) compiled about 10,900 of
// those functions again: 7 to 15 s per package on a cold 2-core build. Code that needs the model asks for
// it with the free functions Model and OperationModel, and only its own package pays.
type libModel struct {
	doc       libopenapi.Document
	model     *v3.Document
	validator validator.Validator
}

func libOf(s *Spec) *libModel { return s.lib.(*libModel) }

// Model returns the libopenapi model, for code that derives checks or data from the document. It is a
// function, not a method, so that packages which never call it do not compile libopenapi's generic
// types (see libModel).
func Model(s *Spec) *v3.Document { return libOf(s).model }

// OperationModel returns the libopenapi operation of op, for code that derives checks or data from it
// (a function, not a field, for the reason Model is one).
func OperationModel(op *Operation) *v3.Operation { return op.op.(*v3.Operation) }

func pathItemOf(op *Operation) *v3.PathItem { return op.pathItem.(*v3.PathItem) }

// ParameterMaximum returns the `maximum` of the named parameter's schema (a path, query or header
// parameter of the operation itself), and false when it has none.
func (o *Operation) ParameterMaximum(name string) (float64, bool) {
	p := declaredParameter(o, name)
	if p != nil && p.Schema != nil && p.Schema.Schema() != nil && p.Schema.Schema().Maximum != nil {
		return *p.Schema.Schema().Maximum, true
	}
	return 0, false
}

// ParameterIn returns where the operation declares its parameter name (path, query, header or
// cookie), and false when it declares none of that name.
func (o *Operation) ParameterIn(name string) (string, bool) {
	if p := declaredParameter(o, name); p != nil {
		return p.In, true
	}
	return "", false
}

// declaredParameter is the operation's own parameter name, nil when it declares none. It is a function,
// not a method, because its result is a libopenapi parameter (see libModel).
func declaredParameter(o *Operation, name string) *v3.Parameter {
	for _, p := range OperationModel(o).Parameters {
		if p != nil && p.Name == name {
			return p
		}
	}
	return nil
}

// DeclaredLink is an OpenAPI link as the document declares it on one response of an operation.
type DeclaredLink struct {
	// Name is the link's key in the response's `links`.
	Name string
	// OperationID is the linked operation's operationId ("" for a link by operationRef).
	OperationID string
	// Params are the link's parameters, in document order: name (possibly qualified, `path.id`) and
	// value (a runtime expression, or a constant).
	Params [][2]string
	// Body is the link's requestBody (an expression or a constant), "" when it gives none.
	Body string
}

// Links returns the links the operation's response code declares, in document order.
func (o *Operation) Links(code string) []DeclaredLink {
	model := OperationModel(o)
	if model.Responses == nil || model.Responses.Codes == nil {
		return nil
	}
	resp, ok := model.Responses.Codes.Get(code)
	if !ok || resp == nil || resp.Links == nil {
		return nil
	}
	var out []DeclaredLink
	for name, l := range resp.Links.FromOldest() {
		d := DeclaredLink{Name: name, OperationID: l.OperationId, Body: l.RequestBody}
		if l.Parameters != nil {
			for k, v := range l.Parameters.FromOldest() {
				d.Params = append(d.Params, [2]string{k, v})
			}
		}
		out = append(out, d)
	}
	return out
}

// ComponentExample returns the value of #/components/examples/NAME, decoded as encoding/json decodes
// (objects are map[string]any), and false when the document has no such example.
func (s *Spec) ComponentExample(name string) (any, bool, error) {
	comps := Model(s).Components
	if comps == nil || comps.Examples == nil {
		return nil, false, nil
	}
	ex, ok := comps.Examples.Get(name)
	if !ok || ex == nil || ex.Value == nil {
		return nil, false, nil
	}
	var v any
	if err := ex.Value.Decode(&v); err != nil {
		return nil, false, fmt.Errorf("decode #/components/examples/%s: %w", name, err)
	}
	return v, true, nil
}

// Pointer is where the document declares the operation: a JSON pointer written as a URI fragment
// (`#/paths/~1v1~1payouts/post`, `#/webhooks/payment.success/post`).
func (o *Operation) Pointer() string { return o.location }

// OperationPointer is where the document declares the path operation method path: a JSON pointer
// (`#/paths/~1v1~1payouts/post`).
func OperationPointer(method, path string) string {
	return "#/paths/" + docedit.Escape(path) + "/" + strings.ToLower(method)
}

// Path is the file the document was read from (WithPath): EmbeddedPath for the embedded one, "" when
// Load was not told.
func (s *Spec) Path() string { return s.path }

// Title is the document's info.title.
func (s *Spec) Title() string { return s.title }

// Version is the document's info.version.
func (s *Spec) Version() string { return s.version }

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

func index(s *Spec, model *v3.Document) error {
	if model.Components != nil && model.Components.SecuritySchemes != nil {
		for name, scheme := range model.Components.SecuritySchemes.FromOldest() {
			if scheme.Type == "apiKey" && scheme.In == "header" {
				s.schemes[name] = strings.ToLower(scheme.Name)
			}
		}
	}
	if model.Paths != nil {
		for path, item := range model.Paths.PathItems.FromOldest() {
			for method, op := range item.GetOperations().FromOldest() {
				if err := add(s, model, path, strings.ToUpper(method), op, item, false,
					OperationPointer(method, path)); err != nil {
					return err
				}
			}
		}
	}
	if model.Webhooks != nil {
		for name, item := range model.Webhooks.FromOldest() {
			if item.Post == nil {
				return fmt.Errorf("webhook %q: only POST deliveries are supported", name)
			}
			if err := add(s, model, name, http.MethodPost, item.Post, item, true, "#/webhooks/"+docedit.Escape(name)+"/post"); err != nil {
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

// tagsMarked returns op's tags (in op's order) that the document marks with the extension key set to
// true.
func tagsMarked(model *v3.Document, op *v3.Operation, key string) []string {
	marked := map[string]bool{}
	for _, tag := range model.Tags {
		if tag == nil || tag.Extensions == nil {
			continue
		}
		if node, ok := tag.Extensions.Get(key); ok && node != nil && node.Value == "true" {
			marked[tag.Name] = true
		}
	}
	var out []string
	for _, tag := range op.Tags {
		if marked[tag] {
			out = append(out, tag)
		}
	}
	return out
}

func add(s *Spec, model *v3.Document, path, method string, op *v3.Operation, item *v3.PathItem, webhook bool, location string) error {
	if op.OperationId == "" {
		return fmt.Errorf("%s %s has no operationId: every operation needs one", method, path)
	}
	if _, dup := s.byID[op.OperationId]; dup {
		return fmt.Errorf("operationId %q is used twice", op.OperationId)
	}
	o := &Operation{ID: op.OperationId, Method: method, Path: path, Webhook: webhook, op: op, pathItem: item, location: location,
		SandboxOnly: len(tagsMarked(model, op, "x-malipo-sandbox-only")) > 0, Tags: slices.Clone(op.Tags),
		ExtensionTags: tagsMarked(model, op, "x-malipo-extension")}
	if op.RequestBody != nil {
		o.HasBody = true
		o.BodyRequired = op.RequestBody.Required != nil && *op.RequestBody.Required
	}
	reqs := model.Security
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
