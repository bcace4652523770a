package report

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// One broken rule makes many checks fail: an implementation whose error responses are not the error
// envelope fails nearly every check, since nearly every check sees an error. Reported check by check,
// that is hundreds of failures for one mistake, and the reader has to find the one rule behind them.
// So the text, HTML and JSON reports lead with findings: the failed checks grouped by the rule they
// break and how they break it, each with the document's words and the number of checks it explains,
// the largest first. JUnit stays per check: CI systems track tests, not findings.

// Finding is one rule of the document broken one way, with the failed checks that show it.
type Finding struct {
	// Says is the document's words for the rule, short: the check's quote, or the text at the schema
	// keyword a failure names (`required: [status, message]`); empty when neither can be read.
	Says string `json:"says,omitempty"`
	// Rule is where the document states it: the schema location the failures name, else the checks'
	// Rule.
	Rule Rule `json:"rule,omitzero"`
	// Violation is how the first of the checks broke it: its failure, with the offending field.
	Violation string `json:"violation"`
	// Locations are the places in the document the grouped failures name (schema locations, else the
	// checks' rules): one, unless the rule is one each operation states for itself (its responses'
	// content types, its documented statuses, its headers) and several operations break it alike.
	Locations []string `json:"locations,omitempty"`
	// Count is len(Checks).
	Count int `json:"count"`
	// Checks are the ids of the failed checks the finding explains, in id order.
	Checks []string `json:"checks"`
}

// Headline is the finding in a few words: the document's, else the violation.
func (f Finding) Headline() string {
	if f.Says != "" {
		return f.Says
	}
	return f.Violation
}

// Findings groups the failed checks of a run by the rule they break and how (findingKey), and returns
// the groups largest first (then by rule, by headline and by first check id: the order is stable). Every
// failed check is in exactly one finding, so the counts add up to Summary.Failed.
//
// A check that failed in several ways belongs to the finding shared by the most checks among the ways
// it failed (ties: the first of them). Its first failure would be an accident of the order in which the
// check asserts; the widest-shared one is most likely the root cause (every check that sees an error
// also sees that errors are not the envelope), and the reader who fixes it first and runs again sees
// what is left, since each check's details below still list every failure.
func Findings(s *Summary) []Finding {
	type choice struct {
		res  *Result
		keys []string // distinct keys of its failures, in order
	}
	var failed []choice
	shared := map[string]int{} // key → how many checks have it
	for i := range s.Results {
		res := &s.Results[i]
		if res.Outcome != Failed {
			continue
		}
		c := choice{res: res}
		failures := res.Failures
		if len(failures) == 0 {
			failures = []Failure{{}} // failed without saying how: grouped by its rule alone
		}
		for _, f := range failures {
			if k := findingKey(*res, f); !slices.Contains(c.keys, k) {
				c.keys = append(c.keys, k)
				shared[k]++
			}
		}
		failed = append(failed, c)
	}
	byKey := map[string]*Finding{}
	var order []string
	for _, c := range failed {
		best := c.keys[0]
		for _, k := range c.keys[1:] {
			if shared[k] > shared[best] {
				best = k
			}
		}
		fd := byKey[best]
		if fd == nil {
			fd = newFinding(*c.res, firstWithKey(*c.res, best))
			byKey[best] = fd
			order = append(order, best)
		}
		fd.Checks = append(fd.Checks, c.res.ID)
		for _, f := range c.res.Failures {
			if findingKey(*c.res, f) == best {
				if loc := locationOf(*c.res, f); loc != "" && !slices.Contains(fd.Locations, loc) {
					fd.Locations = append(fd.Locations, loc)
				}
			}
		}
	}
	out := make([]Finding, 0, len(order))
	for _, k := range order {
		fd := byKey[k]
		fd.Count = len(fd.Checks)
		slices.Sort(fd.Checks)
		out = append(out, *fd)
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(b.Count-a.Count, cmp.Compare(a.Rule.Pointer, b.Rule.Pointer), cmp.Compare(a.Rule.Quote, b.Rule.Quote),
			cmp.Compare(a.Headline(), b.Headline()), cmp.Compare(a.Checks[0], b.Checks[0]))
	})
	return out
}

// firstWithKey is the check's first failure with key k (a zero Failure for a check that recorded none).
func firstWithKey(res Result, k string) Failure {
	for _, f := range res.Failures {
		if findingKey(res, f) == k {
			return f
		}
	}
	return Failure{}
}

// newFinding starts the finding of res's failure f.
func newFinding(res Result, f Failure) *Finding {
	fd := &Finding{Violation: f.Message}
	if f.Pointer != "" {
		fd.Violation = f.Pointer + ": " + f.Message
	}
	switch loc := f.SpecLocation; {
	case strings.HasPrefix(loc, "#/"):
		fd.Rule = Rule{Pointer: loc, Says: f.Says, At: f.At}
	case loc != "":
		// Not a pointer: another grader's citation in words (receivertests cites Standard Webhooks),
		// placed where its check's Rule says the document states it, if it does.
		fd.Says, fd.Rule = loc, res.Rule
		return fd
	default:
		fd.Rule = res.Rule
	}
	fd.Says = cmp.Or(fd.Rule.Quote, fd.Rule.Says)
	return fd
}

// locationOf is the place in the document a failure is about: its schema location, else its check's
// rule.
func locationOf(res Result, f Failure) string {
	if f.SpecLocation != "" {
		return f.SpecLocation
	}
	return res.Rule.Pointer
}

// findingKey says which rule a failure breaks and how, so that failures that differ only in what
// varies from one check to the next (the operation, ids, numbers, quoted values) share it:
//
//   - a failure that names its schema location (the validator's keyword, e.g.
//     #/components/schemas/Error/required) is keyed by it and the offending field (array indexes
//     masked): a schema keyword is one rule, however the value broke it;
//   - where the validator can only name the operation (a content type or status it does not document,
//     a parameter, a documented header: #/paths/{path}/{method}[/responses/{status}/headers/{name}]),
//     the path, method and status are masked, and the message, masked, says how it was broken: the same
//     violation of a rule every operation states for itself is one finding across operations;
//   - any other failure is keyed by its check's Rule (a per-operation pointer masked as above), the
//     offending field and the message, masked.
//
// The key depends on nothing but the failure and the check's Rule, so it works for any target.
func findingKey(res Result, f Failure) string {
	field := maskPointer(f.Pointer)
	if loc := f.SpecLocation; loc != "" {
		if general, ok := generalLocation(loc); ok {
			return "at\x00" + general + "\x00" + field + "\x00" + maskMessage(f.Message)
		}
		return "at\x00" + loc + "\x00" + field
	}
	rule, _ := generalLocation(res.Rule.Pointer)
	return "rule\x00" + rule + "\x00" + res.Rule.Quote + "\x00" + field + "\x00" + maskMessage(f.Message)
}

// generalLocation masks the operation of a pointer at which the validator names an operation rather
// than a schema keyword: the operation itself, its responses, security, parameters, a response's
// headers or its body's schema as a whole. It reports false, and returns loc, for anything else: a
// schema keyword is one rule wherever it is used.
func generalLocation(loc string) (string, bool) {
	var root string
	switch {
	case strings.HasPrefix(loc, "#/paths/"):
		root = "#/paths/"
	case strings.HasPrefix(loc, "#/webhooks/"):
		root = "#/webhooks/"
	default:
		return loc, false
	}
	toks := strings.Split(loc[len(root):], "/")
	if len(toks) < 2 {
		return loc, false
	}
	rest := toks[2:]
	switch {
	case len(rest) == 0,
		len(rest) == 1 && (rest[0] == "responses" || rest[0] == "security"),
		len(rest) == 2 && rest[0] == "parameters",
		len(rest) == 4 && rest[0] == "requestBody" && rest[1] == "content" && rest[3] == "schema":
	case len(rest) == 4 && rest[0] == "responses" && rest[2] == "headers",
		len(rest) == 5 && rest[0] == "responses" && rest[2] == "content" && rest[4] == "schema":
		rest = slices.Clone(rest)
		rest[1] = "*"
	default:
		return loc, false
	}
	return root + "*/*/" + strings.Join(rest, "/"), true
}

// maskPointer masks the array indexes of a JSON pointer: /data/3/amount is /data/*/amount.
func maskPointer(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if t != "" && strings.Trim(t, "0123456789") == "" {
			toks[i] = "*"
		}
	}
	return strings.Join(toks, "/")
}

// The variable parts of a failure's message, masked by maskMessage in this order.
var (
	// A JSON body quoted at the end of a message ("want HTTP 401, got 200: {…}"): data, not the rule.
	jsonTail = regexp.MustCompile(`(?s)(:\s*)[\[{].*$`)
	// Quoted values: "…" (with escapes), `…`, “…”, and '…' when the quote opens a word (not "target's").
	quoted = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|\u201c[^\u201d]*\u201d|(^|[^\\pL\\pN])'[^'\\n]*'")
	// URLs and paths (/v1/payment/payouts/p_1).
	urlOrPath = regexp.MustCompile(`https?://\S+|(^|[\s(\[=,])/[^\s,;)\]]*`)
	// A word with a digit in it: a number, a status code, an id (pay_7bef…), a duration (250ms).
	withDigit = regexp.MustCompile(`[\pL\pN_.-]*\pN[\pL\pN_.-]*`)
	// An HTTP method: which operation a violation was seen on.
	method = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b`)
)

// maskMessage replaces what varies from one check to the next in a failure's message (quoted values,
// URLs and paths, numbers and ids, HTTP methods, a JSON body at the end) with placeholders, so that
// two checks that break a rule the same way have the same masked message.
func maskMessage(m string) string {
	m = jsonTail.ReplaceAllString(m, "${1}{…}")
	m = quoted.ReplaceAllString(m, "${1}'…'")
	m = urlOrPath.ReplaceAllString(m, "${1}/…")
	m = withDigit.ReplaceAllString(m, "#")
	return method.ReplaceAllString(m, "METHOD")
}

// RuleWords is a check's rule as a report shows it after "the document says: ": the quote, or the
// words the grader found at the pointer (Rule.Says), then the pointer and, when the grader found it,
// the file and line (Rule.At); empty for a check without a Rule.
func RuleWords(r Rule) string {
	if r.Pointer == "" {
		return ""
	}
	words := r.Says
	if r.Quote != "" {
		words = "\u201c" + r.Quote + "\u201d"
	}
	where := withPlace(r.Pointer, r.At)
	if words == "" {
		return where
	}
	return words + " (" + where + ")"
}

// RerunCommand is the command that runs the checks ids again, and only them, against the same target:
// Rerun (the command and the flags that reach the target; never a key, which the command reads from the
// environment) and `--run '^id$'` for one check, `--run '^(id1|id2)$'` for several, quoted for a POSIX
// shell. Empty when the run has no Rerun or ids is empty.
func (s *Summary) RerunCommand(ids ...string) string {
	if len(s.Rerun) == 0 || len(ids) == 0 {
		return ""
	}
	words := make([]string, 0, len(s.Rerun)+2)
	for _, a := range s.Rerun {
		words = append(words, singleQuoted(a))
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = regexp.QuoteMeta(id)
	}
	selection := quoted[0]
	if len(quoted) > 1 {
		selection = "(" + strings.Join(quoted, "|") + ")"
	}
	words = append(words, "--run", singleQuoted("^"+selection+"$"))
	return strings.Join(words, " ")
}

// showFindings reports whether the reports have findings to lead with: some finding explains more than
// one check. When every failed check is a finding of its own, the findings would repeat the failures.
func showFindings(s *Summary, findings []Finding) bool {
	return len(findings) > 0 && len(findings) < s.Failed
}
