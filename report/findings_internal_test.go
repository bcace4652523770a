package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// What varies from one check to the next is masked, and nothing else: two messages that differ in it
// mask alike, two that differ in what they say do not.
func TestMaskMessage(t *testing.T) {
	same := [][2]string{
		{`want HTTP 401, got 200: {"status":"success","data":{"payout_id":"po_1"}}`, `want HTTP 401, got 404: [1, 2]`},
		{`the event is about "po_5d1e7b3c2a9f8e40", want "po_0a1b2c3d4e5f6a7b"`, `the event is about "pay_1", want "x"`},
		{`response breaks the spec: The content type 'text/plain' of the POST response received has not been defined in the schema`,
			`response breaks the spec: The content type 'text/html; charset=utf-8' of the PATCH response received has not been defined in the schema`},
		{"GET " + api.OpGetPayout().URL("po_1") + ": connection reset", "DELETE " + api.OpDeleteWebhookEndpoint().URL("we_2") + ": connection reset"},
		{`timed out after 20s waiting for https://h.example/x; last seen: 3 attempts`, `timed out after 1m0s waiting for http://127.0.0.1:9/y; last seen: 12 attempts`},
		{"errors[] must name `/amount`, it names \u201c/currency\u201d", "errors[] must name `/phone`, it names \u201c\u201d"},
	}
	for _, p := range same {
		assert.Equal(t, maskMessage(p[0]), maskMessage(p[1]), "%q and %q", p[0], p[1])
	}
	different := [][2]string{
		{`want final status "success", got "failed"`, `want failure_reason "x", got "y"`},
		{`the replay must carry Idempotent-Replayed: true`, `the first response must not claim to be a replay`},
		{`required property is missing`, `property is not allowed here`},
	}
	for _, p := range different {
		assert.NotEqual(t, maskMessage(p[0]), maskMessage(p[1]), "%q and %q", p[0], p[1])
	}
	assert.Equal(t, "the target's answer is '…'", maskMessage("the target's answer is 'no'"), "an apostrophe opens no quote")
}

// The validator names an operation where it cannot name a schema keyword; those places lose their
// operation (and status), a schema keyword keeps it all.
func TestGeneralLocation(t *testing.T) {
	for loc, want := range map[string]string{
		"#/paths/~1v1~1payment~1init/post":                                                "#/paths/*/*/",
		"#/paths/~1v1~1webhooks~1{id}/patch/responses":                                    "#/paths/*/*/responses",
		"#/paths/~1v1~1payment~1init/post/security":                                       "#/paths/*/*/security",
		"#/paths/~1v1~1payment~1init/post/responses/201/headers/Idempotent-Replayed":      "#/paths/*/*/responses/*/headers/Idempotent-Replayed",
		"#/paths/~1v1~1payment~1init/post/responses/201/content/application~1json/schema": "#/paths/*/*/responses/*/content/application~1json/schema",
		"#/webhooks/payment.success/post/parameters/webhook-signature":                    "#/webhooks/*/*/parameters/webhook-signature",
	} {
		got, ok := generalLocation(loc)
		assert.True(t, ok, loc)
		assert.Equal(t, want, got, loc)
	}
	for _, loc := range []string{
		"#/components/schemas/Error/required",
		"#/paths/~1v1~1payment~1init/post/responses/201/content/application~1json/schema/properties/data/required",
		"openapi/malipo.yaml tags[Events]",
		"",
	} {
		got, ok := generalLocation(loc)
		assert.False(t, ok, loc)
		assert.Equal(t, loc, got)
	}
	assert.Equal(t, "/errors/*/field", maskPointer("/errors/0/field"))
	assert.Equal(t, "header.content-type", maskPointer("header.content-type"))
}
