package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"
)

// HARRecorder writes every HTTP exchange and every webhook delivery of the run, whether its check
// passed or not, to Path as an HTTP Archive (HAR 1.2), which browsers' developer tools and HAR viewers
// load. It is a Reporter and an Observer: entries are written as they happen (the file does not grow
// in memory), into Path + ".partial", which becomes Path when the run ends.
//
// Entries are what Evidence holds, so key values and webhook secrets are redacted and bodies are cut
// at MaxEvidenceBody (the entry's comment says so; content.size and bodySize keep the real size).
// Besides the standard fields each entry has the custom fields HAR allows (names starting with _):
// `_malipo_kind` ("request"; "webhook" for a delivery the target sent to the suite's receiver, or
// "delivery" for one the receiver grader sent to a merchant's receiver, whose request is the delivery
// and whose response is the receiver's answer), `_check` (the check it
// belongs to), `_operation` (the operationId or the event type) and `_error` (a transport error, with
// response status 0). Timings are not broken down: the whole time is `wait`.
type HARRecorder struct {
	Path string
	// Tool names the archive's creator; empty means DefaultTool.
	Tool string

	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	entries int
	err     error
}

// Start creates the file and writes the head of the archive.
func (h *HARRecorder) Start([]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, err := os.Create(h.partial())
	if err != nil {
		h.err = fmt.Errorf("record the run as HAR: %w; pass --record a path in a writable directory", err)
		return
	}
	h.f, h.w = f, bufio.NewWriter(f)
	tool := h.Tool
	if tool == "" {
		tool = DefaultTool
	}
	creator, err := json.Marshal(harCreator{Name: tool, Version: malipoVersion()})
	if err != nil {
		h.err = fmt.Errorf("record the run as HAR: %w", err)
		return
	}
	h.write(`{"log":{"version":"1.2","creator":` + string(creator) + `,"entries":[`)
}

// CheckDone does nothing: entries come through Observe.
func (h *HARRecorder) CheckDone(Result) {}

// Observe writes one entry.
func (h *HARRecorder) Observe(ev Evidence) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w == nil || h.err != nil {
		return
	}
	data, err := json.Marshal(harEntryOf(ev))
	if err != nil {
		h.err = fmt.Errorf("record the run as HAR: encode an entry of %s: %w", ev.Check, err)
		return
	}
	if h.entries > 0 {
		h.write(",")
	}
	h.write("\n" + string(data))
	h.entries++
}

// Finish ends the archive and moves it to Path.
func (h *HARRecorder) Finish(s *Summary) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return h.err
	}
	// HAR 1.2's log.comment carries the seed, so that an archive of generated requests says how to
	// send them again.
	h.write("\n]")
	if s != nil && s.Seed != 0 {
		h.write(fmt.Sprintf(`,"comment":"generated inputs from --seed %d"`, s.Seed))
	}
	h.write("}}\n")
	if err := h.w.Flush(); err != nil && h.err == nil {
		h.err = fmt.Errorf("record the run as HAR: write %s: %w", h.partial(), err)
	}
	if err := h.f.Close(); err != nil && h.err == nil {
		h.err = fmt.Errorf("record the run as HAR: write %s: %w", h.partial(), err)
	}
	h.f, h.w = nil, nil
	if h.err != nil {
		return h.err
	}
	if err := os.Rename(h.partial(), h.Path); err != nil {
		return fmt.Errorf("record the run as HAR: %w", err)
	}
	return nil
}

func (h *HARRecorder) partial() string { return filepath.Clean(h.Path) + ".partial" }

// write writes s, keeping the first error for Finish.
func (h *HARRecorder) write(s string) {
	if h.err != nil {
		return
	}
	if _, err := h.w.WriteString(s); err != nil {
		h.err = fmt.Errorf("record the run as HAR: write %s: %w", h.partial(), err)
	}
}

// malipoVersion is the module version of the running binary ("(devel)" for a local build).
func malipoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// The HAR 1.2 structures (http://www.softwareishard.com/blog/har-12-spec/) the recorder writes.
type (
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
		Kind            string      `json:"_malipo_kind"`
		Check           string      `json:"_check,omitempty"`
		Operation       string      `json:"_operation,omitempty"`
		Error           string      `json:"_error,omitempty"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []struct{}   `json:"cookies"`
		Headers     []harNameVal `json:"headers"`
		QueryString []harNameVal `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int          `json:"headersSize"`
		BodySize    int          `json:"bodySize"`
	}
	harResponse struct {
		Status      int          `json:"status"`
		StatusText  string       `json:"statusText"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []struct{}   `json:"cookies"`
		Headers     []harNameVal `json:"headers"`
		Content     harContent   `json:"content"`
		RedirectURL string       `json:"redirectURL"`
		HeadersSize int          `json:"headersSize"`
		BodySize    int          `json:"bodySize"`
	}
	harNameVal struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Comment  string `json:"comment,omitempty"`
	}
	harContent struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
		Comment  string `json:"comment,omitempty"`
	}
	// harTimings are milliseconds; -1 means "does not apply". HAR requires time to be their sum.
	harTimings struct {
		Blocked float64 `json:"blocked"`
		DNS     float64 `json:"dns"`
		Connect float64 `json:"connect"`
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
		SSL     float64 `json:"ssl"`
	}
)

// harTime is HAR's startedDateTime: ISO 8601 with milliseconds and the zone.
const harTime = "2006-01-02T15:04:05.000Z07:00"

// harEntryOf turns one piece of evidence into a HAR entry.
func harEntryOf(ev Evidence) harEntry {
	ms := float64(ev.Duration) / float64(time.Millisecond)
	e := harEntry{
		StartedDateTime: ev.Started.Format(harTime),
		Time:            ms,
		Timings:         harTimings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: ms, Receive: 0, SSL: -1},
		Kind:            ev.Kind,
		Check:           ev.Check,
		Operation:       ev.Operation,
		Error:           ev.Error,
		Request: harRequest{Method: ev.Request.Method, URL: ev.Request.URL, HTTPVersion: "HTTP/1.1",
			Cookies: []struct{}{}, Headers: harHeaders(ev.Request.Header), QueryString: harQuery(ev.Request.URL),
			HeadersSize: -1, BodySize: ev.Request.BodySize},
		Response: harResponse{Status: ev.Response.Status, StatusText: http.StatusText(ev.Response.Status),
			HTTPVersion: "HTTP/1.1", Cookies: []struct{}{}, Headers: harHeaders(ev.Response.Header),
			Content:     harContent{Size: ev.Response.BodySize, MimeType: ev.Response.Header.Get("Content-Type"), Text: ev.Response.Body},
			RedirectURL: ev.Response.Header.Get("Location"), HeadersSize: -1, BodySize: ev.Response.BodySize},
	}
	switch ev.Kind {
	case EvidenceWebhook:
		e.Comment = "a webhook delivery the target sent to the suite's receiver; the response is the receiver's answer"
	case EvidenceDelivery:
		e.Comment = "a webhook delivery the grader sent to the merchant's receiver; the response is the receiver's answer"
	}
	if ev.Request.BodySize > 0 {
		e.Request.PostData = &harPostData{MimeType: ev.Request.Header.Get("Content-Type"), Text: ev.Request.Body}
		if ev.Request.BodyTruncated {
			e.Request.PostData.Comment = truncatedComment(ev.Request)
		}
	}
	if ev.Response.BodyTruncated {
		e.Response.Content.Comment = truncatedComment(ev.Response)
	}
	if ev.Error != "" {
		e.Response.BodySize = -1
	}
	return e
}

func truncatedComment(m HTTPMessage) string {
	return fmt.Sprintf("body cut to its first %d of %d bytes (reports keep at most %d KiB of a body)",
		len(m.Body), m.BodySize, MaxEvidenceBody>>10)
}

// harHeaders lists headers by name, sorted (HAR keeps no map).
func harHeaders(h http.Header) []harNameVal {
	out := []harNameVal{}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range h[name] {
			out = append(out, harNameVal{Name: name, Value: v})
		}
	}
	return out
}

// harQuery lists the query parameters of a URL, in order.
func harQuery(raw string) []harNameVal {
	out := []harNameVal{}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return out
	}
	values, _ := url.ParseQuery(u.RawQuery)
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range values[name] {
			out = append(out, harNameVal{Name: name, Value: v})
		}
	}
	return out
}

var _ interface {
	Reporter
	Observer
} = (*HARRecorder)(nil)
