//go:build linux

package report_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
)

// openPTY opens a pseudo-terminal with the standard library alone: the terminal side (what a program
// writes to) and the controller side (what a terminal emulator reads).
func openPTY(t *testing.T) (terminal, controller *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, controller.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, controller.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("number of the pseudo-terminal: %v", e)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return terminal, controller
}

// onTerminal runs textRun with the reporter writing to a pseudo-terminal and returns what the
// terminal received.
func onTerminal(t *testing.T, quiet bool) string {
	t.Helper()
	terminal, controller := openPTY(t)
	defer func() { _ = controller.Close() }()
	received := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(controller) // ends with EIO once the terminal side is closed
		received <- data
	}()
	textRun(t, &report.TextReporter{W: terminal, Quiet: quiet})
	require.NoError(t, terminal.Close())
	return string(<-received)
}

// screen is what a terminal shows after receiving out: carriage return, line feed and erase-to-end-of-
// line are obeyed, every other character is printed over what the cursor is on.
func screen(out string) string {
	var lines []string
	var line []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			line = line[:min(col, len(line))]
			i += len("\x1b[K")
			continue
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, string(line))
			line, col = nil, 0
		default:
			r := []rune(out[i:])[0]
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
			i += len(string(r))
			continue
		}
		i++
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return strings.Join(lines, "\n")
}

// On a terminal one progress line is redrawn below the check lines as checks end, and it is gone at
// the end: what is left on the screen is exactly what a log gets.
func TestTextProgressLineOnATerminal(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprintf("quiet=%v", quiet), func(t *testing.T) {
			raw := onTerminal(t, quiet)
			t.Logf("%q", raw)
			for _, progress := range []string{"[1/3]  reference.countries", "[2/3] 1 failed  negative.rotateWebhookEndpointSecret",
				"[3/3] 1 failed, 1 skipped  auth.isolation.payout"} {
				assert.Contains(t, raw, progress)
			}
			assert.Contains(t, raw, "\r\x1b[K", "each progress line is erased before the next output")
			var log bytes.Buffer
			textRun(t, &report.TextReporter{W: &log, Quiet: quiet})
			assert.Equal(t, strings.TrimRight(log.String(), "\n"), screen(raw))
		})
	}
}
