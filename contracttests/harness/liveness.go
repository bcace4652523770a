package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// pingTimeout bounds one request of the preflight and of confirmAlive: a target that takes longer to
// list its countries is not answering.
const pingTimeout = 10 * time.Second

// PingOperation is what confirmAlive asks, and the preflight first: an operation every implementation
// has, which needs only the public key (TestPreflightOperationsNeedTheKeysItAssumes holds the document
// to that).
var PingOperation = api.OpListCountries()

// Get sends a GET of op to the target with the key headers op's security requirement names, and
// returns the status and, for an error envelope, " (code N name: message)" with the keys blanked
// out of the message.
func (s *Suite) Get(ctx context.Context, op api.Operation, path string, keys Keys, header http.Header) (status int, answer string, err error) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, op.Method, s.cfg.BaseURL+path, nil)
	if err != nil {
		return 0, "", err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	if op.Needs(api.HeaderPublicKey) {
		req.Header.Set(api.HeaderPublicKey, keys.Public)
	}
	if op.Needs(api.HeaderSecretKey) {
		req.Header.Set(api.HeaderSecretKey, keys.Secret)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil && env.Code != nil {
		msg := env.Message
		for _, k := range []string{keys.Public, keys.Secret} {
			if k != "" {
				msg = strings.ReplaceAll(msg, k, "[key]")
			}
		}
		answer = fmt.Sprintf(" (code %d %s: %q)", *env.Code, api.ErrorCode(*env.Code), truncate(msg, 200))
	}
	return resp.StatusCode, answer, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// gatewayStatus reports whether status is what a proxy answers for a target behind it that is down
// (502, 503, 504): such an answer to the one request every implementation serves means no target.
func gatewayStatus(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// confirmAlive asks the target for something every implementation answers, twice a moment apart;
// when neither gets an answer (or only a gateway's 502, 503 or 504) the target has stopped answering, and the run stops with a cause that
// wraps runner.ErrUnreachable and names the check that noticed. One probe runs at a time: the checks that
// fail together while the target goes down wait for its verdict.
func (s *Suite) confirmAlive(checkID string, cause error) {
	s.liveness.Lock()
	defer s.liveness.Unlock()
	if s.run.Err() != nil {
		return
	}
	var err error
	for attempt := range 2 {
		if attempt > 0 {
			select {
			case <-s.run.Done():
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
		var status int
		if status, _, err = s.Get(s.run, PingOperation, PingOperation.URL(), s.cfg.Keys, nil); err == nil {
			if !gatewayStatus(status) {
				return
			}
			err = fmt.Errorf("%s %s answered %d, as a proxy or load balancer does in front of a target that is down", PingOperation.Method, PingOperation.Path, status)
		}
	}
	if s.run.Err() != nil {
		return
	}
	s.stop(fmt.Errorf("%w: the target stopped answering during check %s: %w (asked again: %w); make sure it is running and reachable, then run again",
		runner.ErrUnreachable, checkID, cause, err))
}
