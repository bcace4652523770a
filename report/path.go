package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CheckPath reports why a report could not be written to path: its directory is missing or not a
// directory, path is a directory, or the file cannot be created or opened for
// writing there. It leaves no trace: an existing file is not changed, a probe file is removed.
func CheckPath(path string) error {
	if path == "" {
		return errors.New("empty report path: give a file name")
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write the report %s: directory %s does not exist; create it (mkdir -p %s) or choose another path",
			path, dir, dir)
	case err != nil:
		return fmt.Errorf("cannot write the report %s: %w; choose another path", path, err)
	case !info.IsDir():
		return fmt.Errorf("cannot write the report %s: %s is not a directory; choose another path", path, dir)
	}
	if info, err := os.Stat(path); err == nil {
		if info.IsDir() {
			return fmt.Errorf("cannot write the report %s: it is a directory; give a file name", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot write the report %s: %w; make it writable or choose another path", path, err)
		}
		return f.Close()
	}
	probe, err := os.CreateTemp(dir, ".malipo-report-*")
	if err != nil {
		return fmt.Errorf("cannot write the report %s: %w; make %s writable or choose another path", path, err, dir)
	}
	name := probe.Name()
	return errors.Join(probe.Close(), os.Remove(name))
}
