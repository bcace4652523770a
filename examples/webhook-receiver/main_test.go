package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/receivertests"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// The example passes `malipo webhooks test` (the grader, as the CLI runs it), during a rotation with
// either secret, and with a merchant secret key.
func TestExamplePassesTheGrader(t *testing.T) {
	old, err := webhook.NewSecret()
	require.NoError(t, err)
	current, err := webhook.NewSecret()
	require.NoError(t, err)
	key, err := webhook.ParseSecret("sk_test_example_receiver")
	require.NoError(t, err)

	rotating, err := secretsFromEnv(old.Reveal() + " " + current.Reveal())
	require.NoError(t, err)
	for name, c := range map[string]struct {
		secrets []webhook.Secret
		grade   webhook.Secret
	}{
		"endpoint secret":               {[]webhook.Secret{current}, current},
		"rotation, graded with the old": {rotating, old},
		"rotation, graded with the new": {rotating, current},
		"merchant secret key":           {[]webhook.Secret{key}, key},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(newReceiver(c.secrets, slog.New(slog.DiscardHandler)))
			defer srv.Close()
			sum, err := receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL + "/webhooks/malipo", Secret: c.grade,
				Timeout: 5 * time.Second, Burst: 10})
			require.NoError(t, err)
			for _, r := range sum.Results {
				assert.Equal(t, report.Passed, r.Outcome, "%s: %v", r.ID, r.Failures)
			}
			assert.Equal(t, runner.ExitConformant, runner.ExitCode(sum, err))
		})
	}
}

func TestSecretsFromEnvNeverQuotesTheSecret(t *testing.T) {
	_, err := secretsFromEnv("")
	require.Error(t, err)
	_, err = secretsFromEnv("whsec_%%%not-base64")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "not-base64")
}
