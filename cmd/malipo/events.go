package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// `malipo events`: the event-log extension from the command line, against any target: what was
// emitted, each delivery attempt and the receiver's answer, and resend after fixing a receiver.

// eventsCommand is `malipo events` and its subcommands.
func (c *cli) eventsCommand() *cobra.Command {
	f := &targetFlags{}
	cmd := &cobra.Command{
		Use:   "events",
		Short: "list, read, resend and follow the webhook events of a target (the event-log extension)",
		Long: `Lists the events a target emitted (one per status change of a payment or payout), shows each
delivery attempt with the receiver's answer, and resends an event with the same webhook-id, e.g. after
fixing a receiver.

The target is --target, else $MALIPO_BASE_URL, else a local malipo sandbox (` + defaultTarget + `, with its
default keys when none are given). Keys: --public-key and --secret-key, or MALIPO_PUBLIC_KEY and
MALIPO_SECRET_KEY, as for conform. Exit codes: 0 success, 1 the target answered with an error, 2 usage
error or the target does not answer.`,
		Example: `  malipo events list --type payout.failed --since 1h
  malipo events get evt_6f8b0d2e4a5c7b90
  malipo events resend evt_6f8b0d2e4a5c7b90 --endpoint we_2b7c9d1e4f6a8b30
  malipo events tail --events payout.failed`,
		Args:              unknownCommand,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE:              c.usage,
	}
	f.declare(cmd)
	cmd.AddCommand(c.eventsListCommand(f), c.eventsGetCommand(f), c.eventsAttemptsCommand(f), c.eventsResendCommand(f), c.eventsTailCommand(f))
	return cmd
}

// eventArg is the argument check of the commands that take one event id.
func eventArg(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 1:
		return nil
	case 0:
		return usageErrorf(cmd, "give the event's id, e.g. evt_6f8b0d2e4a5c7b90 (malipo events list shows them)")
	}
	return usageErrorf(cmd, "unexpected argument %q; give one event id", args[1])
}

func (c *cli) eventsListCommand(f *targetFlags) *cobra.Command {
	var (
		eventType, object, since, until, cursor string
		limit                                   int
		all                                     bool
	)
	cmd := &cobra.Command{
		Use:   "list [flags]",
		Short: "list events, newest first",
		Long: `Lists the target's events, newest first, one page (--limit) at a time; --all follows the pages to
the end. --since and --until take a time (2026-11-21T10:00:00Z) or a duration back from now (1h).`,
		Example: `  malipo events list
  malipo events list --object po_5d1e7b3c2a9f8e40
  malipo events list --type payment.failed --since 30m --all --output json`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := client.ListEventsParams{Type: api.EventType(eventType), ObjectID: object, Limit: limit, Cursor: cursor}
			if eventType != "" && !slices.Contains(api.EventTypeValues(), p.Type) {
				return usageErrorf(cmd, "--type %s: not an event type; use one of %s", eventType, eventTypeList())
			}
			if limit < 1 || limit > 100 {
				return usageErrorf(cmd, "--limit %d: a page holds 1 to 100 events", limit)
			}
			var err error
			if p.CreatedAfter, err = timeOrAgo(since); err != nil {
				return usageErrorf(cmd, "--since %s: %v", since, err)
			}
			if p.CreatedBefore, err = timeOrAgo(until); err != nil {
				return usageErrorf(cmd, "--until %s: %v", until, err)
			}
			cl, err := f.client(cmd)
			if err != nil {
				return err
			}
			page := client.EventPage{Items: []client.Event{}}
			for {
				next, err := cl.ListEvents(cmd.Context(), p)
				if err != nil {
					c.code = f.fail(c.stderr, cmd.CommandPath(), err)
					return nil
				}
				page.Items = append(page.Items, next.Items...)
				page.HasMore, page.NextCursor = next.HasMore, next.NextCursor
				if !all || !next.HasMore {
					break
				}
				p.Cursor = next.NextCursor
			}
			if f.output == "json" {
				return printJSON(c.stdout, page)
			}
			printEvents(c.stdout, page.Items)
			if page.HasMore {
				fmt.Fprintf(c.stderr, "more events follow: add --cursor %s for the next page, or --all for every page\n", page.NextCursor)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&eventType, "type", "", "only events of this `type` ("+eventTypeList()+")")
	fs.StringVar(&object, "object", "", "only events about this payment (paymentReference) or payout (payout_id)")
	fs.StringVar(&since, "since", "", "only events created at or after this `time` or this long ago (1h)")
	fs.StringVar(&until, "until", "", "only events created before this `time` or this long ago")
	fs.IntVar(&limit, "limit", 20, "events per page, 1 to 100")
	fs.StringVar(&cursor, "cursor", "", "continue after the page that printed this `cursor`")
	fs.BoolVar(&all, "all", false, "follow the pages to the last event")
	oneOf(cmd, "type", eventTypeCompletions()...)
	return cmd
}

func eventTypeList() string {
	var out []string
	for _, t := range api.EventTypeValues() {
		out = append(out, string(t))
	}
	return strings.Join(out, ", ")
}

// eventTypeCompletions are the document's event types, as completions.
func eventTypeCompletions() []cobra.Completion {
	var out []cobra.Completion
	for _, t := range api.EventTypeValues() {
		out = append(out, string(t))
	}
	return out
}

func completeEventTypes(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return eventTypeCompletions(), cobra.ShellCompDirectiveNoFileComp
}

// timeOrAgo reads an RFC 3339 time, or a duration that far back from now; "" is the zero time.
func timeOrAgo(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if d, err := parseDuration(s); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("give an RFC 3339 time (2026-11-21T10:00:00Z) or a duration back from now (90s, 30m, 1h)")
}

// stamp is how the tables show a time: UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func printEvents(w io.Writer, events []client.Event) {
	if len(events) == 0 {
		fmt.Fprintln(w, "no events")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tTYPE\tEVENT\tOBJECT")
	for _, e := range events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", stamp(e.CreatedAt), e.Type, e.ID, e.ObjectID)
	}
	_ = tw.Flush()
}

func (c *cli) eventsGetCommand(f *targetFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "get EVENT_ID [flags]",
		Short: "show an event, its delivery attempts and the body it delivers",
		Long: `Shows an event: its type, object and time, every delivery attempt with the receiver's answer, and
the payload, the body its deliveries carry. --output json prints {"event": …, "attempts": […]}.`,
		Example:           `  malipo events get evt_6f8b0d2e4a5c7b90`,
		Args:              eventArg,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := f.client(cmd)
			if err != nil {
				return err
			}
			ev, err := cl.GetEvent(cmd.Context(), args[0])
			if err == nil {
				var attempts []client.DeliveryAttempt
				if attempts, err = cl.ListEventAttempts(cmd.Context(), args[0]); err == nil {
					return printEvent(c.stdout, f.output, ev, attempts)
				}
			}
			c.code = f.fail(c.stderr, cmd.CommandPath(), err)
			return nil
		},
	}
}

func printEvent(w io.Writer, output string, ev *client.Event, attempts []client.DeliveryAttempt) error {
	if attempts == nil {
		attempts = []client.DeliveryAttempt{}
	}
	if output == "json" {
		return printJSON(w, struct {
			Event    *client.Event            `json:"event"`
			Attempts []client.DeliveryAttempt `json:"attempts"`
		}{ev, attempts})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "event\t%s\ntype\t%s\nobject\t%s\ncreated\t%s\n", ev.ID, ev.Type, ev.ObjectID, ev.CreatedAt.UTC().Format(time.RFC3339Nano))
	_ = tw.Flush()
	fmt.Fprintf(w, "\nattempts (%d)\n", len(attempts))
	printAttempts(w, attempts)
	var pretty bytes.Buffer
	if json.Indent(&pretty, ev.Payload, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(ev.Payload)
	}
	fmt.Fprintf(w, "\npayload (the body each delivery carries)\n%s\n", pretty.String())
	return nil
}

func printAttempts(w io.Writer, attempts []client.DeliveryAttempt) {
	if len(attempts) == 0 {
		fmt.Fprintln(w, "no delivery attempt yet (queued, or the event has no destination)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSTARTED\tDESTINATION\tANSWER\tTOOK\tDELIVERED\tRESPONSE")
	for _, a := range attempts {
		n := fmt.Sprint(a.Number)
		if a.Resend {
			n += " (resend)"
		}
		dest := a.Destination.URL
		if a.Destination.EndpointID != "" {
			dest = a.Destination.EndpointID + " " + dest
		}
		answer := a.Error
		if a.StatusCode != nil {
			answer = fmt.Sprint(*a.StatusCode)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%dms\t%t\t%s\n", n, stamp(a.StartedAt), dest, answer, a.DurationMs, a.Delivered, oneLineSnippet(a.ResponseBody, 60))
	}
	_ = tw.Flush()
}

// oneLineSnippet is s on one line, cut to n runes.
func oneLineSnippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (c *cli) eventsAttemptsCommand(f *targetFlags) *cobra.Command {
	return &cobra.Command{
		Use:               "attempts EVENT_ID [flags]",
		Short:             "list an event's delivery attempts and what each receiver answered",
		Example:           `  malipo events attempts evt_6f8b0d2e4a5c7b90 --output json`,
		Args:              eventArg,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := f.client(cmd)
			if err != nil {
				return err
			}
			attempts, err := cl.ListEventAttempts(cmd.Context(), args[0])
			if err != nil {
				c.code = f.fail(c.stderr, cmd.CommandPath(), err)
				return nil
			}
			if f.output == "json" {
				if attempts == nil {
					attempts = []client.DeliveryAttempt{}
				}
				return printJSON(c.stdout, attempts)
			}
			printAttempts(c.stdout, attempts)
			return nil
		},
	}
}

func (c *cli) eventsResendCommand(f *targetFlags) *cobra.Command {
	var endpoint string
	cmd := &cobra.Command{
		Use:   "resend EVENT_ID [--endpoint ID] [flags]",
		Short: "deliver an event again, with the same webhook-id",
		Long: `Delivers an event again with the same webhook-id and body (a fresh timestamp and signature): to the
destinations it has now (its object's webhook_url, the enabled endpoints subscribed to its type), or
with --endpoint to that webhook endpoint only, whatever it subscribes to. Follow the deliveries with
'malipo events attempts EVENT_ID'.`,
		Example: `  malipo events resend evt_6f8b0d2e4a5c7b90 --endpoint we_2b7c9d1e4f6a8b30
  malipo events tail --events payout.failed`,
		Args:              eventArg,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := f.client(cmd)
			if err != nil {
				return err
			}
			out, err := cl.ResendEvent(cmd.Context(), args[0], client.ResendEventRequest{EndpointID: endpoint})
			if err != nil {
				c.code = f.fail(c.stderr, cmd.CommandPath(), err)
				return nil
			}
			if f.output == "json" {
				return printJSON(c.stdout, out)
			}
			if len(out.Deliveries) == 0 {
				fmt.Fprintf(c.stdout, "nothing queued: event %s has no destination now (no webhook_url, no enabled endpoint subscribed to its type); name one with --endpoint\n", out.EventID)
				return nil
			}
			fmt.Fprintf(c.stdout, "queued %d deliveries of %s (same webhook-id); follow them with: malipo events attempts %s\n", len(out.Deliveries), out.EventID, out.EventID)
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			for _, d := range out.Deliveries {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Kind, d.EndpointID, d.URL)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "resend to this webhook endpoint `id` only")
	return cmd
}

// eventsTailCommand is `malipo events tail`: the log followed as it grows, like tail -f.
func (c *cli) eventsTailCommand(f *targetFlags) *cobra.Command {
	ff := &followFlags{interval: time.Second}
	cmd := &cobra.Command{
		Use:   "tail [flags]",
		Short: "print the target's events as they are created, until Ctrl-C",
		Long: `Follows the target's event log and prints each new event on one line (created, type, event, object),
oldest first; --output json prints each as one line of JSON, as the log returns it. It begins with the
events created after it starts; --since begins at a time or that long ago. --events keeps only some
types. Ctrl-C ends it (exit code 0). To deliver the events to a receiver, use 'malipo listen'.`,
		Example: `  malipo events tail
  malipo events tail --events payment.failed,payout.failed --since 1h -o json`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl, err := ff.follower(cmd, c, f)
			if fl == nil {
				return err
			}
			// On stderr, once the starting point is known: every event created from now on is printed.
			fmt.Fprintf(c.stderr, "printing the events of %s as they are created; Ctrl-C stops\n", f.target)
			follow(cmd.Context(), fl, ff.interval, c.stderr, cmd.CommandPath(), func(e client.Event) {
				printTailLine(c.stdout, f.output, e)
			})
			return nil
		},
	}
	ff.declare(cmd)
	return cmd
}

// printTailLine prints one event on one line: the table's columns, or the event's JSON.
func printTailLine(w io.Writer, output string, e client.Event) {
	if output == "json" {
		line, err := json.Marshal(e)
		if err == nil {
			fmt.Fprintf(w, "%s\n", line)
		}
		return
	}
	fmt.Fprintf(w, "%s  %-18s %s  %s\n", stamp(e.CreatedAt), e.Type, e.ID, e.ObjectID)
}
