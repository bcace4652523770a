package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
)

// CheckPath says why a report cannot be written, and what to do, before a run starts; checking a
// path that can be written changes nothing there.
func TestCheckReportPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "existing.xml")
	require.NoError(t, os.WriteFile(file, []byte("keep me"), 0o644))

	for _, tc := range []struct{ path, says string }{
		{filepath.Join(dir, "missing", "c.xml"), "does not exist; create it (mkdir -p "},
		{filepath.Join(file, "c.xml"), "is not a directory"},
		{dir, "it is a directory"},
		{"", "empty report path"},
	} {
		err := report.CheckPath(tc.path)
		require.Error(t, err, tc.path)
		assert.Contains(t, err.Error(), tc.says)
	}

	require.NoError(t, report.CheckPath(file))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(data), "checking an existing report must not change it")
	require.NoError(t, report.CheckPath(filepath.Join(dir, "new.xml")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "checking a new report path leaves nothing behind")
}
