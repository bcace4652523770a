package contracttests

import (
	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/embedded"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// startEmbedded starts the embedded sandbox (package embedded) with opts applied after its defaults (a
// fault for the self-test, a variant, another document) and returns a Config aimed at it.
func startEmbedded(opts ...sandbox.Option) (harness.Config, func() error, error) {
	target, stop, err := embedded.Start(opts...)
	if err != nil {
		return harness.Config{}, nil, err
	}
	return harness.Config{
		BaseURL:           target.BaseURL,
		Keys:              harness.Keys{Public: target.PublicKey, Secret: target.SecretKey},
		OtherMerchant:     &harness.Keys{Public: target.OtherPublicKey, Secret: target.OtherSecretKey},
		WebhookStall:      target.Stall,
		EventuallyTimeout: target.Wait,
	}, stop, nil
}

// StartEmbeddedWith lets the external tests start the embedded sandbox with options (a fault, a variant).
var StartEmbeddedWith = startEmbedded

// StartEmbedded starts the embedded sandbox as `malipo conform` without --target does.
func StartEmbedded() (harness.Config, func() error, error) { return startEmbedded() }
