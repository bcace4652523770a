package webhooksink

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// pipeListener is an in-memory listener: connections are net.Pipe pairs, so that a synctest bubble
// sees every goroutine of the server and its clients as durably blocked when they wait.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.closed) }); return nil }

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// dial connects a new client to the listener.
func (l *pipeListener) dial(context.Context, string, string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close returns at once however the target left its connections: one it opened and never used (which
// http.Server.Shutdown counts as busy for five seconds), one idle after an acknowledged delivery, and
// one carrying a delivery the receiver stalls for an hour. In the synctest bubble time moves only when
// every goroutine waits, so Close taking no time at all means it waited on no deadline and no stall:
// the receiver that drained with Shutdown and a 2 s deadline took exactly 2 s here.
func TestReceiverCloseWaitsForNothing(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	synctest.Test(t, func(t *testing.T) {
		ln := newPipeListener()
		r := newReceiver(spec, ln, "http://receiver.test")
		unused, err := ln.dial(t.Context(), "", "")
		require.NoError(t, err)
		defer func() { _ = unused.Close() }()

		idle := &http.Transport{DialContext: ln.dial}
		defer idle.CloseIdleConnections()
		resp, err := (&http.Client{Transport: idle}).Post(r.URL("/acknowledged"), "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)

		r.SetBehavior("/stalled", Behavior{StallFirst: 1, Stall: time.Hour})
		stalled := make(chan error, 1)
		go func() {
			resp, err := (&http.Client{Transport: &http.Transport{DialContext: ln.dial}}).Post(r.URL("/stalled"), "application/json", strings.NewReader(`{}`))
			if err == nil {
				_ = resp.Body.Close()
			}
			stalled <- err
		}()
		synctest.Wait()
		require.Len(t, r.Deliveries("/stalled"), 1, "the stalled delivery is being handled")

		start := time.Now()
		require.NoError(t, r.Close())
		assert.Zero(t, time.Since(start), "Close waited on a timer: a drain deadline or the stall")
		assert.Error(t, <-stalled, "the stalled delivery ends unanswered")
		assert.Zero(t, r.Deliveries("/stalled")[0].Answer)
		require.NoError(t, r.Close(), "a second Close does nothing")
	})
}
