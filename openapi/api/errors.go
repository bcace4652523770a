package api

import "strconv"

// ErrorCode is the envelope `code` of an error response; the generated Code* constants are the
// document's ErrorCode table.
type ErrorCode int

type errorInfo struct {
	name   string
	status int
}

// String is the code's name in the document's table ("validation_failed"), or the number when the
// document does not know it.
func (c ErrorCode) String() string {
	if info, ok := errorTable[c]; ok {
		return info.name
	}
	return "code_" + strconv.Itoa(int(c))
}

// HTTPStatus is the HTTP status the document fixes for the code (x-malipo-http-status); 0 for a code
// the document does not know.
func (c ErrorCode) HTTPStatus() int { return errorTable[c].status }

// Known reports whether the document declares the code.
func (c ErrorCode) Known() bool {
	_, ok := errorTable[c]
	return ok
}
