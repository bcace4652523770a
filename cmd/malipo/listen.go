package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// `malipo listen` and `malipo events tail`: follow a target's event log (the event-log extension) as
// it grows. listen forwards each new event to a URL on the developer's machine as a signed webhook,
// so that a receiver can be developed against a target that cannot reach it (a shared sandbox, a
// staging API behind NAT); tail prints each one.

// followLateness is how far before the newest event it has seen a follower asks again. The log is
// paged newest first and its cursor walks back in time, so new events are found by asking for those
// created at or after a time; asking a second early finds an event that a target stamped with a
// slightly earlier time than one already listed (clocks of several servers, created_at written to the
// second), and the ids already seen keep it from being shown twice.
const followLateness = time.Second

// follower reads the events of a target's log that it has not returned yet, oldest first.
type follower struct {
	cl    *client.Client
	types []api.EventType // only these types; empty keeps every type
	// mark is the creation time of the newest event seen; seen holds the ids of the events created
	// within followLateness of it, the ones the next poll lists again.
	mark time.Time
	seen map[string]time.Time
}

func newFollower(cl *client.Client, types []api.EventType) *follower {
	return &follower{cl: cl, types: types, seen: map[string]time.Time{}}
}

// startAt makes the follower return only events created at or after since.
func (f *follower) startAt(since time.Time) { f.mark = since.Add(followLateness) }

// startNow makes the follower return only events the target creates from now on. "Now" is the
// target's newest event rather than this machine's clock, which a remote target need not share: the
// events listed up to it are marked seen.
func (f *follower) startNow(ctx context.Context) error {
	page, err := f.cl.ListEvents(ctx, client.ListEventsParams{Limit: 1})
	if err != nil || len(page.Items) == 0 {
		return err // an empty log: every event to come is new, and the zero mark lists them all
	}
	newest := page.Items[0]
	f.mark = newest.CreatedAt
	older, err := f.list(ctx)
	if err != nil {
		return err
	}
	for _, e := range older {
		if !e.CreatedAt.After(newest.CreatedAt) {
			f.seen[e.ID] = e.CreatedAt
		}
	}
	return nil
}

// poll returns the events created since the last poll that pass the type filter, oldest first.
func (f *follower) poll(ctx context.Context) ([]client.Event, error) {
	events, err := f.list(ctx)
	if err != nil {
		return nil, err
	}
	var out []client.Event
	for _, e := range events {
		if _, ok := f.seen[e.ID]; ok {
			continue
		}
		f.seen[e.ID] = e.CreatedAt
		if e.CreatedAt.After(f.mark) {
			f.mark = e.CreatedAt
		}
		if len(f.types) == 0 || slices.Contains(f.types, e.Type) {
			out = append(out, e)
		}
	}
	for id, at := range f.seen {
		if at.Before(f.mark.Add(-followLateness)) {
			delete(f.seen, id)
		}
	}
	return out, nil
}

// list reads every page of the events created at or after followLateness before the mark, following
// next_cursor, and returns them oldest first. The type filter is applied by poll, not the target,
// since the log filters by one type and --events may name several.
func (f *follower) list(ctx context.Context) ([]client.Event, error) {
	p := client.ListEventsParams{Limit: 100}
	if !f.mark.IsZero() {
		p.CreatedAfter = f.mark.Add(-followLateness)
	}
	var events []client.Event
	for {
		page, err := f.cl.ListEvents(ctx, p)
		if err != nil {
			return nil, err
		}
		events = append(events, page.Items...)
		if !page.HasMore {
			break
		}
		p.Cursor = page.NextCursor
	}
	slices.Reverse(events)
	return events, nil
}

// followFlags are the flags listen and tail share.
type followFlags struct {
	events   []string
	since    string
	interval time.Duration
}

func (ff *followFlags) declare(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringSliceVar(&ff.events, "events", nil, "comma-separated event `types` to keep (default every type: "+eventTypeList()+")")
	fs.StringVar(&ff.since, "since", "", "begin with the events created at or after this `time` or this long ago (1h), instead of the next one")
	fs.Var(durationValue{&ff.interval}, "interval", "how often to ask the target's event log for new events")
	oneOf(cmd, "events", eventTypeCompletions()...)
}

// follower checks the flags and returns a follower positioned where they say. A wrong flag is a usage
// error; a target that cannot be read returns neither follower nor error, after printing why and
// setting c's exit code.
func (ff *followFlags) follower(cmd *cobra.Command, c *cli, f *targetFlags) (*follower, error) {
	types, err := eventTypesOf(ff.events)
	if err != nil {
		return nil, usageErrorf(cmd, "--events: %v", err)
	}
	if ff.interval <= 0 {
		return nil, usageErrorf(cmd, "--interval %s: give a positive time, e.g. 1s", ff.interval)
	}
	since, err := timeOrAgo(ff.since)
	if err != nil {
		return nil, usageErrorf(cmd, "--since %s: %v", ff.since, err)
	}
	cl, err := f.client(cmd)
	if err != nil {
		return nil, err
	}
	fl := newFollower(cl, types)
	if ff.since != "" {
		fl.startAt(since)
		_, err = cl.ListEvents(cmd.Context(), client.ListEventsParams{Limit: 1}) // does the target keep a log at all?
	} else {
		err = fl.startNow(cmd.Context())
	}
	if err != nil {
		c.code = failFollow(c.stderr, cmd.CommandPath(), f, err)
		return nil, nil
	}
	return fl, nil
}

// eventTypesOf checks names against the document's event types.
func eventTypesOf(names []string) ([]api.EventType, error) {
	var out []api.EventType
	for _, n := range names {
		t := api.EventType(strings.TrimSpace(n))
		if !slices.Contains(api.EventTypeValues(), t) {
			return nil, fmt.Errorf("%q is not an event type; use one of %s", n, eventTypeList())
		}
		out = append(out, t)
	}
	return out, nil
}

// failFollow is targetFlags.fail with a clearer word for a target without the event log: its 404 means
// the extension is absent, not that something was not found.
func failFollow(stderr io.Writer, cmdPath string, f *targetFlags, err error) int {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		fmt.Fprintf(stderr, "%s: %s has no event log (GET %s answered 404): following events needs the event-log extension, which malipo sandbox has; use a target that implements it\n",
			cmdPath, f.target, api.OpListEvents().Path)
		return exitFail
	}
	return f.fail(stderr, cmdPath, err)
}

// follow polls fl every interval until ctx ends, handing each new event to handle. A poll that fails
// is reported on stderr and tried again at the next tick: a target restarting should not end a
// session the developer left running.
func follow(ctx context.Context, fl *follower, interval time.Duration, stderr io.Writer, cmdPath string, handle func(client.Event)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	failing := false
	for {
		events, err := fl.poll(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			fmt.Fprintf(stderr, "%s: reading the event log failed, trying again every %s: %v\n", cmdPath, interval, err)
			failing = true
		case err == nil:
			if failing {
				fmt.Fprintf(stderr, "%s: reading the event log again\n", cmdPath)
				failing = false
			}
			for _, e := range events {
				handle(e)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// listenSecretEnv is read by listen when --secret is not given, as by `malipo webhooks test` and
// examples/webhook-receiver: the receiver and listen then share one secret without it being typed.
const listenSecretEnv = webhookSecretEnv

// listenCommand is `malipo listen`.
func (c *cli) listenCommand() *cobra.Command {
	f := &targetFlags{}
	ff := &followFlags{interval: time.Second}
	var forwardTo, secretText string
	timeout := api.WebhookDeliveryTimeout
	cmd := &cobra.Command{
		Use:   "listen --forward-to URL [flags]",
		Short: "forward a target's new events to a local URL as signed webhooks",
		Long: fmt.Sprintf(`Follows the target's event log (the event-log extension) and forwards each new event to
--forward-to as a Standard Webhooks delivery, the way the target would deliver it: the event's payload
as the body, webhook-id the event id, webhook-timestamp now, and webhook-signature signed with a fresh
whsec_ secret printed when it starts (or --secret, or $%s). Point the receiver you are developing at
that secret. Each delivery prints one line: when, the event type and id, and the receiver's status and
latency, or why there was none. A delivery is sent once, not retried.

It begins with the events created after it starts; --since replays from a time (2026-11-21T10:00:00Z)
or from that long ago (1h). --events keeps only some types. Ctrl-C ends it (exit code 0).
Target and keys as for 'malipo events'. Exit codes: 0 ended by Ctrl-C, 1 the target has no event log
or answered with an error, 2 usage error or the target does not answer.`, listenSecretEnv),
		Example: `  malipo listen --forward-to http://127.0.0.1:8090/webhooks/malipo
  malipo listen --forward-to http://localhost:3000/hooks --events payout.success,payout.failed --since 10m`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if forwardTo == "" {
				return usageErrorf(cmd, "--forward-to is required: the URL of your receiver, e.g. --forward-to http://127.0.0.1:8090/webhooks/malipo")
			}
			if timeout <= 0 {
				return usageErrorf(cmd, "--timeout %s: give a positive time, e.g. 10s", timeout)
			}
			secret, generated, err := listenSecret(cmd, secretText)
			if err != nil {
				return err
			}
			fl, err := ff.follower(cmd, c, f)
			if fl == nil {
				return err
			}
			fw := &forwarder{url: forwardTo, secret: secret, http: forwardClient(timeout)}
			announceListen(c.stderr, f.target, forwardTo, secret, generated)
			follow(cmd.Context(), fl, ff.interval, c.stderr, cmd.CommandPath(), func(e client.Event) {
				printDelivery(c.stdout, f.output, fw.forward(cmd.Context(), e))
			})
			return nil
		},
	}
	f.declare(cmd)
	ff.declare(cmd)
	fs := cmd.Flags()
	fs.Var(baseURLValue{&forwardTo}, "forward-to", "the `URL` to deliver each event to, e.g. your receiver on localhost")
	// No default: a default would print a secret from the environment in --help.
	fs.StringVar(&secretText, "secret", "", "sign with this `secret` (whsec_…) instead of a fresh one (default $"+listenSecretEnv+")")
	secretFlag(fs, "secret", listenSecretEnv)
	fs.Var(durationValue{&timeout}, "timeout", "how long the receiver has to answer each delivery")
	return cmd
}

// listenSecret is the secret listen signs with: --secret, else the environment's, else a fresh one
// (generated true), which is the only kind ever printed.
func listenSecret(cmd *cobra.Command, flag string) (secret webhook.Secret, generated bool, err error) {
	text, from := flag, "--secret"
	if text == "" {
		text, from = strings.TrimSpace(os.Getenv(listenSecretEnv)), "$"+listenSecretEnv
	}
	if text == "" {
		secret, err = webhook.NewSecret()
		return secret, true, err
	}
	if secret, err = webhook.ParseSecret(text); err != nil {
		return webhook.Secret{}, false, usageErrorf(cmd, "%s: %v", from, err)
	}
	return secret, false, nil
}

// announceListen says where events come from and go, and the secret to verify them with: in full
// when listen made it up (the receiver needs it), never when the developer gave it.
func announceListen(w io.Writer, target, forwardTo string, secret webhook.Secret, generated bool) {
	fmt.Fprintf(w, "forwarding the new events of %s to %s\n", target, forwardTo)
	if generated {
		fmt.Fprintf(w, "signing with %s (a fresh secret: give it to your receiver, e.g. export %s=…)\n", secret.Reveal(), listenSecretEnv)
	} else {
		fmt.Fprintln(w, "signing with the secret you gave (not printed)")
	}
	fmt.Fprintln(w, "Ctrl-C stops")
}

// forwarder delivers events to one URL, signed with one secret.
type forwarder struct {
	url    string
	secret webhook.Secret
	http   *http.Client
}

// forwardClient answers with what the receiver said: redirects are not followed (a webhook sender
// does not follow them either), and an answer slower than timeout is a failed delivery.
func forwardClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// delivery is what one forward did, for its line.
type delivery struct {
	Time      time.Time     `json:"time"`
	EventType api.EventType `json:"type"`
	EventID   string        `json:"event_id"`
	Status    int           `json:"status,omitempty"`
	LatencyMs int64         `json:"latency_ms"`
	Error     string        `json:"error,omitempty"`
	latency   time.Duration
}

// forward posts e's payload, exactly as the log returned it, with the Standard Webhooks headers.
func (fw *forwarder) forward(ctx context.Context, e client.Event) delivery {
	d := delivery{Time: time.Now(), EventType: e.Type, EventID: e.ID}
	defer func() { d.LatencyMs = d.latency.Milliseconds() }()
	body := []byte(e.Payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, fw.url, bytes.NewReader(body))
	if err != nil {
		d.Error = err.Error()
		return d
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "malipo-listen")
	webhook.SetHeaders(req.Header, e.ID, d.Time, body, fw.secret)
	resp, err := fw.http.Do(req)
	if err != nil {
		d.latency = time.Since(d.Time)
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is the same on every line
		}
		d.Error = err.Error()
		return d
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	d.latency = time.Since(d.Time)
	d.Status = resp.StatusCode
	return d
}

// printDelivery prints a delivery's line: for people, or one JSON object with -o json.
func printDelivery(w io.Writer, output string, d delivery) {
	if output == "json" {
		line, _ := json.Marshal(d)
		fmt.Fprintf(w, "%s\n", line)
		return
	}
	answer := fmt.Sprintf("%d in %s", d.Status, latency(d.latency))
	if d.Error != "" {
		answer = fmt.Sprintf("no answer after %s: %s", latency(d.latency), d.Error)
	}
	fmt.Fprintf(w, "%s  %-18s %s  -> %s\n", stamp(d.Time), d.EventType, d.EventID, answer)
}

// latency is a delivery's duration for people: milliseconds, "<1ms" on loopback.
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
