// Package compileprobe uses the openapi package as most of the repository does (a Spec, its operations,
// validation, a report's summary) without asking for the libopenapi model. TestUsingASpecCompilesNoLibopenapi
// builds it and counts what its compiled archive holds: it must hold no function of libopenapi.
package compileprobe

import (
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Use touches every exported part of Spec and Operation that is not a libopenapi type.
func Use(s *openapi.Spec, r *http.Request, sum *report.Summary) any {
	op, _, _ := s.Route(r.Method, r.URL.Path)
	ex, _, _ := s.ComponentExample("x")
	max, _ := op.ParameterMaximum("limit")
	return []any{s, op, *op, s.ValidateRequest(r), s.Operations(), s.Title(), ex, max, sum, *sum}
}
