package harness

import (
	"sort"
	"strconv"
	"sync"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

type coverageRecorder struct {
	spec *openapi.Spec
	mu   sync.Mutex
	seen map[string]map[int]bool
}

func newCoverage(spec *openapi.Spec) *coverageRecorder {
	return &coverageRecorder{spec: spec, seen: map[string]map[int]bool{}}
}

func (c *coverageRecorder) sawStatus(op string, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[op] == nil {
		c.seen[op] = map[int]bool{}
	}
	c.seen[op][status] = true
}

func (c *coverageRecorder) summary(types map[string]bool) report.Coverage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cov report.Coverage
	for _, op := range APIOperations(c.spec) {
		oc := report.OperationCoverage{Operation: op.ID, Documented: op.Responses}
		seen := c.seen[op.ID]
		for _, code := range op.Responses {
			cov.StatusCodesDefined++
			if matchesAny(code, seen) {
				oc.Seen = append(oc.Seen, code)
				cov.StatusCodesSeen++
			}
		}
		for status := range seen {
			if !documented(op.Responses, status) {
				oc.Undocumented = append(oc.Undocumented, strconv.Itoa(status))
			}
		}
		sort.Strings(oc.Undocumented)
		cov.Operations = append(cov.Operations, oc)
	}
	cov.WebhookTypes = c.spec.EventTypes()
	for _, t := range cov.WebhookTypes {
		if types[t] {
			cov.WebhookTypesSeen = append(cov.WebhookTypesSeen, t)
		}
	}
	return cov
}

// matchesAny reports whether a documented code ("201", "4XX") matches a seen status.
func matchesAny(code string, seen map[int]bool) bool {
	for status := range seen {
		if codeMatches(code, status) {
			return true
		}
	}
	return false
}

func documented(codes []string, status int) bool {
	for _, c := range codes {
		if codeMatches(c, status) {
			return true
		}
	}
	return false
}

func codeMatches(code string, status int) bool {
	s := strconv.Itoa(status)
	if len(code) == 3 && code[1:] == "XX" {
		return s[0] == code[0]
	}
	return code == s || code == "default"
}
