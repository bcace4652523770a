package specdiff_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/openapi/specdiff"
)

// edited returns the embedded document, encoded by docedit, and a copy with edits.
func edited(t *testing.T, edit func(d *docedit.Doc) error) (old, updated []byte) {
	t.Helper()
	d, err := docedit.Parse(openapi.YAML())
	require.NoError(t, err)
	old, err = d.Bytes()
	require.NoError(t, err)
	require.NoError(t, edit(d))
	updated, err = d.Bytes()
	require.NoError(t, err)
	return old, updated
}

// The same document, byte for byte or only reformatted, has no change: libopenapi compares values.
func TestIdenticalDocumentsHaveNoChange(t *testing.T) {
	r, err := specdiff.Diff(openapi.YAML(), openapi.YAML())
	require.NoError(t, err)
	assert.Empty(t, r.Changes)
	assert.Equal(t, 0, specdiff.ExitCode(r, nil))

	reformatted, _ := edited(t, func(*docedit.Doc) error { return nil })
	require.NotEqual(t, openapi.YAML(), reformatted)
	r, err = specdiff.Diff(openapi.YAML(), reformatted)
	require.NoError(t, err)
	assert.Empty(t, r.Changes)

	var text strings.Builder
	require.NoError(t, r.Text(&text))
	assert.Contains(t, text.String(), ": no changes")
}

// One report breaking each audience, in every format.
func TestFormats(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	old, updated := edited(t, func(d *docedit.Doc) error {
		for _, err := range []error{
			d.Remove("/paths/" + docedit.Escape(api.OpGetPayout().Path)),
			d.Remove("/webhooks/" + docedit.Escape(string(api.EventTypePayoutFailed))),
			d.Remove("/x-malipo-test-values/payments/1"),
			d.Set("/info/description", "Shorter | with a pipe."),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
	r, err := specdiff.Diff(old, updated)
	require.NoError(t, err)
	require.Len(t, r.Changes, 4)
	assert.Equal(t, 1, specdiff.ExitCode(r, nil))

	var text strings.Builder
	require.NoError(t, r.Write(&text, "text"))
	out := text.String()
	for _, want := range []string{
		"4 changes, 3 breaking (API clients: 1, webhook receivers: 1, conformance (x-malipo-test-values): 1)",
		"BREAKING for API clients:\n  - GET " + api.OpGetPayout().Path + ": path removed (OLD line ",
		"BREAKING for webhook receivers:\n  - webhook " + string(api.EventTypePayoutFailed) + ": event type removed",
		"BREAKING for conformance (x-malipo-test-values):\n  - x-malipo-test-values › payments › " + tv.Payments[1].PhoneNumber,
		"Not breaking:\n  - info: description",
		"clients that call it get 404",
	} {
		assert.Contains(t, out, want)
	}
	assert.Less(t, strings.Index(out, "API clients:\n"), strings.Index(out, "webhook receivers:\n"), "audiences in a fixed order")

	var md strings.Builder
	require.NoError(t, r.Write(&md, "markdown"))
	out = md.String()
	for _, want := range []string{
		"### OpenAPI changes: **breaking**",
		"#### Breaks API clients (1)\n\n| where | what | why |\n|---|---|---|\n| `GET " + api.OpGetPayout().Path + "` | path removed",
		"#### Breaks webhook receivers (1)",
		"#### Breaks conformance (x-malipo-test-values) (1)",
		"<details><summary>1 other change</summary>",
		`Shorter \| with a pipe.`, // a pipe would end the table cell
	} {
		assert.Contains(t, out, want)
	}

	var js strings.Builder
	require.NoError(t, r.Write(&js, "json"))
	var decoded struct {
		Old         specdiff.Version          `json:"old"`
		Breaking    bool                      `json:"breaking"`
		BreakingFor map[specdiff.Audience]int `json:"breaking_for"`
		Changes     []specdiff.Change         `json:"changes"`
	}
	require.NoError(t, json.Unmarshal([]byte(js.String()), &decoded))
	assert.True(t, decoded.Breaking)
	assert.Equal(t, map[specdiff.Audience]int{specdiff.Clients: 1, specdiff.Receivers: 1, specdiff.Conformance: 1}, decoded.BreakingFor)
	assert.Equal(t, r.Changes, decoded.Changes)
	assert.Equal(t, "1.0.0", decoded.Old.Version)
	assert.NotZero(t, decoded.Changes[0].OldLine)

	assert.ErrorContains(t, r.Write(&js, "yaml"), "use one of text, markdown, json")
}

// An input that cannot be compared is an error naming which one and why, and exit code 2.
func TestUnreadableInputs(t *testing.T) {
	doc := openapi.YAML()
	for name, tc := range map[string]struct {
		old, updated []byte
		want         string
	}{
		"empty":             {nil, doc, "OLD is empty"},
		"not YAML":          {doc, []byte("{not: [yaml"), "NEW is not an OpenAPI document"},
		"not OpenAPI":       {doc, []byte("just: a map\n"), "NEW is not an OpenAPI document"},
		"OpenAPI 2":         {[]byte("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n"), doc, `OLD is OpenAPI "2.0"`},
		"bad test values":   {doc, []byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\nx-malipo-test-values: {payments: 7}\n"), "NEW: x-malipo-test-values does not decode"},
		"identical garbage": {[]byte("-"), []byte("-"), "OLD is not an OpenAPI document"},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := specdiff.Diff(tc.old, tc.updated)
			require.Error(t, err)
			assert.ErrorIs(t, err, specdiff.ErrUnreadable)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, 2, specdiff.ExitCode(r, err))
		})
	}

	dir := t.TempDir()
	good := filepath.Join(dir, "malipo.yaml")
	require.NoError(t, os.WriteFile(good, doc, 0o600))
	_, err := specdiff.DiffFiles(good, filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, specdiff.ErrUnreadable)
	assert.Contains(t, err.Error(), "NEW: open ")
	assert.Contains(t, err.Error(), "`malipo spec > old.yaml` writes the embedded one")
	r, err := specdiff.DiffFiles(good, good)
	require.NoError(t, err)
	assert.Empty(t, r.Changes)
}

// Run is the command: the report on the writer and the exit code.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	oldDoc, newDoc := edited(t, func(d *docedit.Doc) error { return d.Remove("/paths/" + docedit.Escape(api.OpGetPayout().Path)) })
	oldPath, newPath := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
	require.NoError(t, os.WriteFile(oldPath, oldDoc, 0o600))
	require.NoError(t, os.WriteFile(newPath, newDoc, 0o600))

	var out strings.Builder
	code, err := specdiff.Run(&out, oldPath, newPath, "markdown")
	require.NoError(t, err)
	assert.Equal(t, 1, code)
	assert.Contains(t, out.String(), "#### Breaks API clients (1)")

	out.Reset()
	code, err = specdiff.Run(&out, oldPath, oldPath, "json")
	require.NoError(t, err)
	assert.Equal(t, 0, code)
	assert.Contains(t, out.String(), `"breaking": false`)

	code, err = specdiff.Run(&out, oldPath, filepath.Join(dir, "missing.yaml"), "text")
	assert.Equal(t, 2, code)
	require.ErrorIs(t, err, specdiff.ErrUnreadable)

	code, err = specdiff.Run(&out, oldPath, newPath, "html")
	assert.Equal(t, 2, code)
	assert.ErrorContains(t, err, `--format "html": use one of text, markdown, json`)
}

// The bound on a failed delivery's first retry is a rule implementations keep: a new or shorter bound
// breaks conformance (a slower schedule stops conforming), a longer one breaks nobody.
func TestFirstRetryBoundIsAConformanceRule(t *testing.T) {
	pointer := "/tags/6/" + openapi.FirstRetryExtension
	for _, tt := range []struct {
		name string
		edit func(d *docedit.Doc) error
	}{
		{"added", func(d *docedit.Doc) error { return d.Remove(pointer) }},
		{"shorter", func(d *docedit.Doc) error { return d.Set(pointer, "120") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, updated := edited(t, tt.edit)
			r, err := specdiff.Diff(updated, old) // from the edited document to the embedded one
			require.NoError(t, err)
			require.Len(t, r.BreakingFor(specdiff.Conformance), 1, "%+v", r.Changes)
			assert.Empty(t, r.BreakingFor(specdiff.Clients))
			assert.Contains(t, r.BreakingFor(specdiff.Conformance)[0].Why, "first retry")
		})
	}
	old, updated := edited(t, func(d *docedit.Doc) error { return d.Set(pointer, "120") })
	r, err := specdiff.Diff(old, updated) // 60 → 120: asks less of implementations
	require.NoError(t, err)
	assert.False(t, r.Breaking(), "%+v", r.Changes)
}
