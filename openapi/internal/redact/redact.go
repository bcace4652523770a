// Package redact holds the one fmt.Formatter that the types holding a secret share (api.SecretString,
// webhook.Secret, client.WebhookEndpointWithSecret), so that every verb prints their redacted form.
package redact

import (
	"fmt"
	"io"
	"strconv"
)

// Printer is a value with a redacted String and GoString.
type Printer interface {
	String() string
	GoString() string
}

// Format writes p for verb: %#v as GoString, %q as the quoted String, every other verb (%x and %d
// included, which do not all consult String) as String.
func Format(p Printer, f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, p.GoString())
	case verb == 'q':
		_, _ = io.WriteString(f, strconv.Quote(p.String()))
	default:
		_, _ = io.WriteString(f, p.String())
	}
}
