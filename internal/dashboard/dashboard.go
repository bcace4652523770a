// Package dashboard is the sandbox's web page (`malipo sandbox`, under Prefix): one merchant's
// payments, payouts, webhook endpoints, events and every delivery attempt with the receiver's answer,
// updated live, with buttons to resend an event and to settle a processing payment or payout.
//
// It is a local development tool, so it is plain server-rendered HTML (html/template, which escapes
// everything the API's callers sent) and one small script, both embedded: no build step, nothing
// fetched from elsewhere. It reads the sandbox in-process (the inspection methods of package sandbox)
// and acts through the sandbox's own API handler with the merchant's keys, so an action obeys the same
// rules and emits the same events as a request would. The page never holds a secret key.
//
// Live updates are server-sent events: the sandbox notifies the dashboard of each change
// (sandbox.Server.Subscribe, which never waits for it), the stream tells the page, and the page
// re-fetches the server-rendered tables.
package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Prefix is where `malipo sandbox` serves the dashboard: outside the API's paths, so that it can
// never shadow an operation.
const Prefix = "/_dashboard/"

// contentSecurityPolicy allows the page nothing but itself: no inline script or style, no other
// origin, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// minGap is the least time between two messages of a live stream (see stream).
const minGap = 250 * time.Millisecond

// heartbeat is how often an idle stream sends a comment, so that proxies and the browser keep it open.
const heartbeat = 20 * time.Second

// shown caps each table: the newest objects and events. A sandbox under a load test holds a million
// payouts; a person reads the latest few.
const shown = 100

//go:embed assets
var assets embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"statusClass": statusClass,
	"objects":     objectsArgs,
	"settleArgs":  settleArgs,
}).ParseFS(assets, "assets/*.tmpl"))

// Handler serves the dashboard of one sandbox. Mount it under Prefix with Mount, or strip the prefix
// yourself: it serves paths relative to its root.
type Handler struct {
	srv     *sandbox.Server
	mux     *http.ServeMux
	done    chan struct{} // closed by Close: ends the live streams
	closeMu sync.Once
}

// New returns the dashboard of srv.
func New(srv *sandbox.Server) *Handler {
	h := &Handler{srv: srv, mux: http.NewServeMux(), done: make(chan struct{})}
	static, _ := fs.Sub(assets, "assets")
	cop := http.NewCrossOriginProtection()
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /tables", h.tables)
	h.mux.HandleFunc("GET /stream", h.stream)
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(static)))
	h.mux.Handle("POST /resend", cop.Handler(http.HandlerFunc(h.resend)))
	h.mux.Handle("POST /settle", cop.Handler(http.HandlerFunc(h.settle)))
	return h
}

// Close ends the live streams, so that an http.Server's Shutdown does not wait for them (register it
// with RegisterOnShutdown).
func (h *Handler) Close() { h.closeMu.Do(func() { close(h.done) }) }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if !localHost(r.Host) {
		http.Error(w, fmt.Sprintf("The dashboard answers only to an IP address or localhost, and this request named the host %q. "+
			"Open it by address, e.g. http://127.0.0.1:PORT%s (this keeps web pages that point a name of their own at this machine, DNS rebinding, away from it).",
			r.Host, Prefix), http.StatusForbidden)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// localHost reports whether a request's Host names the machine by address or as localhost. A web
// page on another site can point a name of its own at 127.0.0.1 (DNS rebinding): the browser then
// treats the dashboard as that site's own origin, so that cross-origin protection lets its buttons
// through and its tables be read. Such requests carry the other site's name as Host; a name the
// browser resolves itself (localhost, *.localhost) or an address cannot be rebound.
func localHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	_, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	return err == nil
}

// Mount serves the dashboard under Prefix and everything else with apiHandler. It is not a ServeMux,
// which would clean and redirect odd paths that the API must answer itself.
func Mount(apiHandler http.Handler, dash *Handler) http.Handler {
	root := strings.TrimSuffix(Prefix, "/")
	inner := http.StripPrefix(root, dash)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == root:
			http.Redirect(w, r, Prefix, http.StatusFound)
		case strings.HasPrefix(r.URL.Path, Prefix):
			inner.ServeHTTP(w, r)
		default:
			apiHandler.ServeHTTP(w, r)
		}
	})
}

// staticFiles serves the embedded script and style sheet.
func staticFiles(static fs.FS) http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".tmpl") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// merchant returns the public key the request chose (?public_key= or the form's public_key), the
// sandbox's default merchant when it chose none; ok is false, with the answer written, for a key the
// sandbox does not have.
func (h *Handler) merchant(w http.ResponseWriter, r *http.Request) (pair sandbox.KeyPair, ok bool) {
	pairs := h.srv.KeyPairs()
	chosen := r.FormValue("public_key")
	if chosen == "" {
		for _, p := range pairs {
			if p.Public == sandbox.DefaultPublicKey {
				return p, true
			}
		}
		return pairs[0], true
	}
	for _, p := range pairs {
		if p.Public == chosen {
			return p, true
		}
	}
	publics := make([]string, len(pairs))
	for i, p := range pairs {
		publics[i] = p.Public
	}
	http.Error(w, fmt.Sprintf("This sandbox has no merchant with public key %q; choose one of: %s.", chosen, strings.Join(publics, ", ")), http.StatusNotFound)
	return sandbox.KeyPair{}, false
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	pair, ok := h.merchant(w, r)
	if !ok {
		return
	}
	h.render(w, "page", h.view(pair.Public))
}

func (h *Handler) tables(w http.ResponseWriter, r *http.Request) {
	pair, ok := h.merchant(w, r)
	if !ok {
		return
	}
	h.render(w, "tables", h.view(pair.Public))
}

func (h *Handler) render(w http.ResponseWriter, name string, v view) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, v); err != nil {
		http.Error(w, "render the dashboard: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// stream is the live feed: a server-sent event when the merchant's state changes, carrying the notice
// as JSON; the page re-fetches its tables on each. Messages are at least minGap apart: a burst (a load
// test) becomes one message now and one at the end of the gap, so that an open page re-reads the
// sandbox a few times a second at most, however busy the API is.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request) {
	pair, ok := h.merchant(w, r)
	if !ok {
		return
	}
	rc := http.NewResponseController(w)
	notices, cancel := h.srv.Subscribe(64)
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(msg string) bool {
		_, err := fmt.Fprint(w, msg)
		return err == nil && rc.Flush() == nil
	}
	notice := func(n sandbox.Notice) bool {
		data, _ := json.Marshal(n)
		return send("data: " + string(data) + "\n\n")
	}
	if !send("retry: 1000\n: connected\n\n") {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	gap := time.NewTimer(minGap)
	gap.Stop()
	quiet := true            // no message in the last minGap: the next one goes at once
	var held *sandbox.Notice // a change during the gap, sent when it ends
	for {
		ok := true
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-tick.C:
			ok = send(": still here\n\n")
		case n := <-notices:
			switch {
			case n.Merchant != pair.Public:
			case quiet:
				ok, quiet = notice(n), false
				gap.Reset(minGap)
			case held == nil:
				held = &n
			}
		case <-gap.C:
			if held == nil {
				quiet = true
				break
			}
			ok, held = notice(*held), nil
			gap.Reset(minGap)
		}
		if !ok {
			return
		}
	}
}

// outcome is what an action answers the page: whether the API accepted it and its message.
type outcome struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

func (h *Handler) resend(w http.ResponseWriter, r *http.Request) {
	pair, ok := h.merchant(w, r)
	if !ok {
		return
	}
	id := r.FormValue("event_id")
	if id == "" {
		h.answer(w, r, pair, outcome{Message: "No event_id was given: use the Resend button of an event."})
		return
	}
	h.answer(w, r, pair, h.call(r.Context(), pair, api.OpResendEvent(), id, map[string]any{}))
}

func (h *Handler) settle(w http.ResponseWriter, r *http.Request) {
	pair, ok := h.merchant(w, r)
	if !ok {
		return
	}
	var op api.Operation
	switch r.FormValue("kind") {
	case "payment":
		op = api.OpSettleSandboxPayment()
	case "payout":
		op = api.OpSettleSandboxPayout()
	default:
		h.answer(w, r, pair, outcome{Message: "kind must be payment or payout: use a Settle button of the page."})
		return
	}
	id := r.FormValue("id")
	if id == "" {
		h.answer(w, r, pair, outcome{Message: "No id was given: use a Settle button of the page."})
		return
	}
	body := map[string]any{"status": r.FormValue("status")}
	if reason := r.FormValue("failure_reason"); reason != "" && r.FormValue("status") == string(api.PaymentStatusFailed) {
		body["failure_reason"] = reason
	}
	h.answer(w, r, pair, h.call(r.Context(), pair, op, id, body))
}

// answer reports an action's outcome: as JSON to the page's script, or by sending a browser without
// it back to the page.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, pair sandbox.KeyPair, out outcome) {
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		status := http.StatusOK
		if !out.OK {
			status = http.StatusUnprocessableEntity
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	// Relative to the action's own URL, which the browser knows and this handler does not (the prefix
	// is stripped); http.Redirect would resolve it against the stripped path.
	w.Header().Set("Location", "./?public_key="+url.QueryEscape(pair.Public))
	w.WriteHeader(http.StatusSeeOther)
}

// call runs op on the sandbox's own API handler as the merchant, with the path parameter id, and
// returns the API's verdict in words.
func (h *Handler) call(ctx context.Context, pair sandbox.KeyPair, op api.Operation, id string, body any) outcome {
	data, err := json.Marshal(body)
	if err != nil {
		return outcome{Message: "encode the request: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, op.URL(id), bytes.NewReader(data))
	if err != nil {
		return outcome{Message: "build the request: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, pair.Public)
	if op.Needs(api.HeaderSecretKey) {
		req.Header.Set(api.HeaderSecretKey, pair.Secret)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h.srv.ServeHTTP(rec, req)
	var env struct {
		Message string `json:"message"`
		Errors  []struct {
			Field  string `json:"field"`
			Reason string `json:"reason"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &env); err != nil {
		return outcome{Message: fmt.Sprintf("%s %s answered %d without a JSON envelope", op.Method, req.URL.Path, rec.status)}
	}
	msg := env.Message
	for _, e := range env.Errors {
		msg += fmt.Sprintf(" (%s: %s)", e.Field, e.Reason)
	}
	return outcome{OK: rec.status < http.StatusBadRequest, Message: fmt.Sprintf("%s %s: %d %s", op.Method, req.URL.Path, rec.status, msg)}
}

// recorder keeps the answer of an in-process API call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
