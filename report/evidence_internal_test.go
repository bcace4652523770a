package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A credential in a target's URL (its userinfo's password) shows in no report and no rerun line; the
// user, the host and everything else of the text stay.
func TestUserinfoPasswordsAreRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"http://ci:SUPERSECRET_TOKEN@127.0.0.1:18437/v1/x":    "http://ci:…(redacted)@127.0.0.1:18437/v1/x",
		"curl 'https://u:p%40ss@api.example/v1' -H 'a: b'":    "curl 'https://u:…(redacted)@api.example/v1' -H 'a: b'",
		"--target http://:tok@h:1 --seed 5":                   "--target http://:…(redacted)@h:1 --seed 5",
		"http://user@host/path (no password) and a@b.example": "http://user@host/path (no password) and a@b.example",
		"http://host:8080/v1/payouts?x=a:b@c":                 "http://host:8080/v1/payouts?x=a:b@c",
	} {
		assert.Equal(t, want, MaskUserinfo(in), in)
		assert.Equal(t, want, NewRedactor().Text(in), "the Redactor masks it too: %s", in)
	}
	assert.Equal(t, []string{"malipo", "conform", "--target", "http://ci:…(redacted)@h"}, MaskedArgs([]string{"malipo", "conform", "--target", "http://ci:T@h"}))
}
