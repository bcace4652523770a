package specdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the report formats Write takes, for `--format`.
var Formats = []string{"text", "markdown", "json"}

// Write writes the report in one of Formats.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text", "":
		return r.Text(w)
	case "markdown", "md":
		return r.Markdown(w)
	case "json":
		return r.JSON(w)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// summary is the report's first line.
func (r *Report) summary() string {
	if len(r.Changes) == 0 {
		return "no changes"
	}
	breaking := 0
	for _, c := range r.Changes {
		if c.Breaking() {
			breaking++
		}
	}
	s := fmt.Sprintf("%d %s, %d breaking", len(r.Changes), plural(len(r.Changes), "change", "changes"), breaking)
	var by []string
	for _, a := range audiences {
		if n := len(r.BreakingFor(a)); n > 0 {
			by = append(by, fmt.Sprintf("%s: %d", a.Title(), n))
		}
	}
	if len(by) > 0 {
		s += " (" + strings.Join(by, ", ") + ")"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (v Version) String() string {
	if v.Title == "" && v.Version == "" {
		return "(untitled)"
	}
	return strings.TrimSpace(v.Title + " " + v.Version)
}

// Text writes the report for a terminal: the summary, the breaking changes by audience, then the others.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: %s\n", r.Old, r.New, r.summary())
	for _, a := range audiences {
		changes := r.BreakingFor(a)
		if len(changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nBREAKING for %s:\n", a.Title())
		for _, c := range changes {
			textChange(&b, c, c.Reasons[a])
		}
	}
	var other []Change
	for _, c := range r.Changes {
		if !c.Breaking() {
			other = append(other, c)
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "\nNot breaking:\n")
		for _, c := range other {
			textChange(&b, c, c.Why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func textChange(b *strings.Builder, c Change, why string) {
	fmt.Fprintf(b, "  - %s: %s%s\n      %s\n", c.At, c.What, lines(c), why)
	if len(c.UsedBy) > 0 {
		fmt.Fprintf(b, "      used by: %s\n", strings.Join(c.UsedBy, "; "))
	}
}

func lines(c Change) string {
	switch {
	case c.OldLine > 0 && c.NewLine > 0 && c.OldLine == c.NewLine:
		return fmt.Sprintf(" (line %d)", c.NewLine)
	case c.OldLine > 0 && c.NewLine > 0:
		return fmt.Sprintf(" (OLD line %d, NEW line %d)", c.OldLine, c.NewLine)
	case c.OldLine > 0:
		return fmt.Sprintf(" (OLD line %d)", c.OldLine)
	case c.NewLine > 0:
		return fmt.Sprintf(" (NEW line %d)", c.NewLine)
	}
	return ""
}

// Markdown writes the report for a pull-request comment: a heading with the verdict, a table of the
// breaking changes per audience, and the other changes folded away.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	verdict := "no breaking change"
	if r.Breaking() {
		verdict = "**breaking**"
	}
	fmt.Fprintf(&b, "### OpenAPI changes: %s\n\n`%s` → `%s`: %s.\n", verdict, r.Old, r.New, r.summary())
	for _, a := range audiences {
		changes := r.BreakingFor(a)
		if len(changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### Breaks %s (%d)\n\n", a.Title(), len(changes))
		markdownTable(&b, changes, a)
	}
	var other []Change
	for _, c := range r.Changes {
		if !c.Breaking() {
			other = append(other, c)
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d other %s</summary>\n\n", len(other), plural(len(other), "change", "changes"))
		markdownTable(&b, other, "")
		fmt.Fprintf(&b, "\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTable lists changes with the reason they break a, or (for "") their verdict.
func markdownTable(b *strings.Builder, changes []Change, a Audience) {
	fmt.Fprintf(b, "| where | what | why |\n|---|---|---|\n")
	for _, c := range changes {
		why := c.Why
		if a != "" {
			why = c.Reasons[a]
		}
		if len(c.UsedBy) > 0 {
			why += " (used by " + strings.Join(c.UsedBy, "; ") + ")"
		}
		fmt.Fprintf(b, "| %s | %s%s | %s |\n", cell("`"+c.At+"`"), cell(c.What), lines(c), cell(why))
	}
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// JSON writes the report as one JSON object: old, new, breaking, breaking_for (counts by audience)
// and changes.
func (r *Report) JSON(w io.Writer) error {
	counts := map[Audience]int{}
	for _, a := range audiences {
		counts[a] = len(r.BreakingFor(a))
	}
	changes := r.Changes
	if changes == nil {
		changes = []Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // the report is read, not embedded in HTML: "&", not "\u0026"
	return enc.Encode(struct {
		Old         Version          `json:"old"`
		New         Version          `json:"new"`
		Breaking    bool             `json:"breaking"`
		BreakingFor map[Audience]int `json:"breaking_for"`
		Changes     []Change         `json:"changes"`
	}{r.Old, r.New, r.Breaking(), counts, changes})
}
