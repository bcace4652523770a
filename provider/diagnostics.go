package provider

import "strings"

// errText is an error's text without a final period, to be followed by what to do in a diagnostic.
func errText(err error) string { return strings.TrimRight(err.Error(), ". ") }
