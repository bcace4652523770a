package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// A wait for deliveries that times out after the target repeated one says that the missing delivery
// may be queued behind a retry the document allows, and which --wait would tell; without a repeat it
// adds nothing.
func TestRetryHintNamesTheWaitThatTells(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	ct := &T{suite: &Suite{spec: spec, cfg: Config{EventuallyTimeout: 10 * time.Second}}}
	once := []*webhooksink.Delivery{{EventID: "evt_1"}, {EventID: "evt_2"}}
	assert.Empty(t, retryHint(ct, once))
	twice := []*webhooksink.Delivery{{EventID: "evt_1"}, {EventID: "evt_1"}}
	hint := retryHint(ct, twice)
	assert.Contains(t, hint, "delivered evt_1 2 times")
	assert.Contains(t, hint, "a --wait of 1m10s or more")
}
