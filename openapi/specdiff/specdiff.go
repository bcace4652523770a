// Package specdiff compares two versions of an OpenAPI document (`malipo spec diff OLD NEW`) and says,
// for each change, whom it breaks: API clients (the requests they send, the responses they parse),
// webhook receivers (the deliveries they parse and verify, the event types they get), and conformance
// (implementations and test suites that rely on the document's x-malipo-test-values).
//
// The changes themselves come from libopenapi's what-changed. Its own "breaking" flag does not say for
// whom and does not know direction: a new enum value is harmless in a request (the server accepts
// more) and breaks whoever parses a response or a webhook payload (they meet a value they do not
// know). So each change is placed (a request, a response, a webhook payload, or a component schema
// used by some of those, see usage.go) and judged by rules that know which side produces and which
// consumes the message (rules.go). libopenapi does not compare extensions deeply, so the test values
// are compared here (testvalues.go).
package specdiff

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	whatchanged "github.com/pb33f/libopenapi/what-changed"
)

// Audience is whom a breaking change breaks.
type Audience string

// The audiences.
const (
	// Clients are API clients: the requests they send and the responses they parse.
	Clients Audience = "clients"
	// Receivers are webhook receivers: the deliveries (payloads, event types, signature headers) they
	// parse and verify, and the answers they give.
	Receivers Audience = "receivers"
	// Conformance is what relies on x-malipo-test-values: implementations that must simulate them and
	// merchants' tests that use them to produce outcomes on demand.
	Conformance Audience = "conformance"
)

// audiences is every audience, in the order reports list them.
var audiences = []Audience{Clients, Receivers, Conformance}

// Title is the audience in words, for reports.
func (a Audience) Title() string {
	switch a {
	case Clients:
		return "API clients"
	case Receivers:
		return "webhook receivers"
	case Conformance:
		return "conformance (x-malipo-test-values)"
	}
	return string(a)
}

// Change is one change between the two documents, with the verdict.
type Change struct {
	// At says where the change is, for people: the operation, webhook or component, the part of it,
	// and the field (`POST /v1/payment/payouts/process › request body › /purpose`).
	At string `json:"at"`
	// What says what changed, for people (`now required`, `value "reversed" added to enum`).
	What string `json:"what"`
	// Kind is added, removed or modified.
	Kind string `json:"kind"`
	// Property is the keyword, member or key that changed, as libopenapi names it (`required`, `enum`,
	// `parameters`, a path).
	Property string `json:"property"`
	// Old and New are the values before and after, on one line and shortened to 60 characters.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// OldLine and NewLine are where the change is in each file (0 when it is not in that file).
	OldLine int `json:"old_line,omitempty"`
	NewLine int `json:"new_line,omitempty"`
	// Breaks lists whom the change breaks; empty when it breaks no one.
	Breaks []Audience `json:"breaks,omitempty"`
	// Why explains the verdict, breaking or not.
	Why string `json:"why"`
	// Reasons says, for each audience the change breaks, why it breaks that one.
	Reasons map[Audience]string `json:"reasons,omitempty"`
	// UsedBy lists, for a change to a shared component (a parameter, a response, a header) that
	// libopenapi finds at every use, the places that use it.
	UsedBy []string `json:"used_by,omitempty"`
}

// Breaking reports whether the change breaks anyone.
func (c Change) Breaking() bool { return len(c.Breaks) > 0 }

// Version names one of the two documents.
type Version struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// Report is every change between two documents, breaking ones first.
type Report struct {
	Old     Version  `json:"old"`
	New     Version  `json:"new"`
	Changes []Change `json:"changes"`
}

// Breaking reports whether any change breaks anyone; `malipo spec diff` exits 1 when it does.
func (r *Report) Breaking() bool {
	return slices.ContainsFunc(r.Changes, Change.Breaking)
}

// BreakingFor returns the changes that break the audience.
func (r *Report) BreakingFor(a Audience) []Change {
	var out []Change
	for _, c := range r.Changes {
		if slices.Contains(c.Breaks, a) {
			out = append(out, c)
		}
	}
	return out
}

// ErrUnreadable wraps every error of Diff and DiffFiles: an input that cannot be read, parsed or
// modelled as OpenAPI 3 (`malipo spec diff` exits 2 on it).
var ErrUnreadable = errors.New("unreadable input")

// readHint says what to pass when a document cannot be read.
const readHint = "pass the paths of two OpenAPI 3 documents (YAML or JSON); `malipo spec > old.yaml` writes the embedded one"

// DiffFiles reads the two documents and compares them (see Diff).
func DiffFiles(oldPath, newPath string) (*Report, error) {
	old, err := os.ReadFile(oldPath) //nolint:gosec // the paths are the user's own choice of documents
	if err != nil {
		return nil, fmt.Errorf("%w: OLD: %w; %s", ErrUnreadable, err, readHint)
	}
	updated, err := os.ReadFile(newPath) //nolint:gosec // as above
	if err != nil {
		return nil, fmt.Errorf("%w: NEW: %w; %s", ErrUnreadable, err, readHint)
	}
	r, err := Diff(old, updated)
	if err != nil {
		return nil, fmt.Errorf("%w (OLD is %s, NEW is %s)", err, oldPath, newPath)
	}
	return r, nil
}

// Diff compares two versions of an OpenAPI 3 document (YAML or JSON) and returns every change with
// whom it breaks. An error means an input could not be used; it wraps ErrUnreadable.
func Diff(old, updated []byte) (*Report, error) {
	oldDoc, err := load("OLD", old)
	if err != nil {
		return nil, err
	}
	newDoc, err := load("NEW", updated)
	if err != nil {
		return nil, err
	}
	raw, err := compare(oldDoc, newDoc)
	if err != nil {
		return nil, err
	}
	c := newClassifier(oldDoc, newDoc)
	changes := c.classify(raw)
	tvChanges, err := diffTestValues(oldDoc.model, newDoc.model)
	if err != nil {
		return nil, err
	}
	changes = append(changes, tvChanges...)
	sortChanges(changes)
	return &Report{Old: versionOf(oldDoc.model), New: versionOf(newDoc.model), Changes: changes}, nil
}

// document is one loaded input.
type document struct {
	doc   libopenapi.Document
	model *v3.Document
}

func load(which string, data []byte) (*document, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: %s is empty; pass an OpenAPI 3 document (YAML or JSON)", ErrUnreadable, which)
	}
	doc, err := libopenapi.NewDocumentWithConfiguration(data, &datamodel.DocumentConfiguration{})
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not an OpenAPI document: %w", ErrUnreadable, which, err)
	}
	if v := doc.GetVersion(); len(v) == 0 || v[0] != '3' {
		return nil, fmt.Errorf("%w: %s is OpenAPI %q; this compares OpenAPI 3 documents", ErrUnreadable, which, v)
	}
	built, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("%w: %s cannot be modelled as OpenAPI 3: %w", ErrUnreadable, which, err)
	}
	return &document{doc: doc, model: &built.Model}, nil
}

// compare runs libopenapi's what-changed, which panics on some malformed inputs; a panic is reported
// as an unreadable input rather than a crash.
func compare(old, updated *document) (raw []rawChange, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: libopenapi could not compare the documents: %v", ErrUnreadable, p)
		}
	}()
	return flatten(whatchanged.CompareOpenAPIDocuments(old.model.GoLow(), updated.model.GoLow())), nil
}

func versionOf(m *v3.Document) Version {
	if m.Info == nil {
		return Version{}
	}
	return Version{Title: m.Info.Title, Version: m.Info.Version}
}

// ExitCode is the exit status of `malipo spec diff` for a Diff's result: 2 when the documents could
// not be compared (err), 1 when a change breaks anyone, 0 otherwise.
func ExitCode(r *Report, err error) int {
	switch {
	case err != nil || r == nil:
		return 2
	case r.Breaking():
		return 1
	}
	return 0
}

// Run is `malipo spec diff OLD NEW --format FORMAT`: it compares the two files, writes the report to
// w, and returns the exit code (0 nothing breaks, 1 a change breaks someone, 2 the command could not
// do its job) with, for 2, the error to show.
func Run(w io.Writer, oldPath, newPath, format string) (int, error) {
	if !slices.Contains(Formats, format) {
		return 2, fmt.Errorf("--format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	r, err := DiffFiles(oldPath, newPath)
	if err != nil {
		return ExitCode(r, err), err
	}
	if err := r.Write(w, format); err != nil {
		return 2, fmt.Errorf("write the report: %w", err)
	}
	return ExitCode(r, nil), nil
}
