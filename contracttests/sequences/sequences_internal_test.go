package sequences

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// TestInterleavingIsReproducibleFromTheSeed: the interleaving is drawn from the check's stream, so the
// same seed gives the same order and another seed another; every order keeps each sequence's steps.
func TestInterleavingIsReproducibleFromTheSeed(t *testing.T) {
	lengths := []int{5, 5, 5, 4, 4, 4}
	const id = "sequences.payments-payouts"
	a := interleave(harness.CheckRand(42, id), lengths)
	assert.Equal(t, a, interleave(harness.CheckRand(42, id), lengths), "the same seed must give the same interleaving")
	assert.NotEqual(t, a, interleave(harness.CheckRand(43, id), lengths), "another seed must give another interleaving")
	for _, order := range [][]int{a, interleave(harness.CheckRand(43, id), lengths)} {
		counts := make([]int, len(lengths))
		for _, i := range order {
			counts[i]++
		}
		assert.Equal(t, lengths, counts, "each sequence takes all its steps")
	}
	// Over many seeds, every sequence sometimes goes first: the draw is not biased to one.
	first := map[int]bool{}
	for seed := range uint64(200) {
		first[interleave(harness.CheckRand(seed+1, id), lengths)[0]] = true
	}
	assert.Len(t, first, len(lengths))
}

// planLabels is the walk from root as labels, with the index of the step each link is read from.
func planLabels(t *testing.T, spec *openapi.Spec, root string) (labels []string, from []int, skipped []string) {
	t.Helper()
	plan, err := planSequence(spec, root)
	require.NoError(t, err)
	for _, s := range plan.Steps {
		labels, from = append(labels, s.label()), append(from, s.From)
	}
	return labels, from, plan.Skipped
}

// TestSequencesAreWalkedFromTheLinks: the steps of each sequence are the links the document declares,
// in its order, and a change to the links changes them.
func TestSequencesAreWalkedFromTheLinks(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)

	labels, from, _ := planLabels(t, spec, "initializePayment")
	assert.Equal(t, []string{"initializePayment", "getTransactionStatus(via GetPaymentStatus)", "completePayment(via CompletePayment)", "getTransactionStatus(via GetPaymentStatus)"}, labels)
	assert.Equal(t, []int{-1, 0, 0, 2}, from, "the last read follows the completion's link ($request.path.payment_reference)")

	labels, _, _ = planLabels(t, spec, "processPayout")
	assert.Equal(t, []string{"processPayout", "getPayout(via GetPayout)", "getTransactionStatus(via GetPayoutStatus)"}, labels)

	labels, from, skipped := planLabels(t, spec, "createWebhookEndpoint")
	assert.Equal(t, []string{"createWebhookEndpoint", "getWebhookEndpoint(via GetWebhookEndpoint)", "rotateWebhookEndpointSecret(via RotateWebhookEndpointSecret)",
		"getWebhookEndpoint(via GetWebhookEndpoint)", "deleteWebhookEndpoint(via DeleteWebhookEndpoint)"}, labels)
	assert.Equal(t, 2, from[len(from)-1], "the delete offered last (by rotate-secret's answer) ends the sequence")
	require.Len(t, skipped, 1)
	assert.Contains(t, skipped[0], "UpdateWebhookEndpoint")
	assert.Contains(t, skipped[0], "requires a request body, and the link gives none")

	links := func(op api.Operation, code string) string {
		return "/paths/" + docedit.Escape(op.Path) + "/" + strings.ToLower(op.Method) + "/responses/" + code + "/links"
	}
	createLinks, rotateLinks := links(api.OpCreateWebhookEndpoint(), "201"), links(api.OpRotateWebhookEndpointSecret(), "200")
	initLinks := links(api.OpInitializePayment(), "201")

	payoutLinks := links(api.OpProcessPayout(), "201")

	// One document with an edit for each root's walk: loading a document is most of this test's cost.
	edited := openapitest.Variant(t, func(d *docedit.Doc) error {
		return errors.Join(
			d.Remove(initLinks+"/CompletePayment"),
			d.Remove(rotateLinks+"/DeleteWebhookEndpoint"),
			d.Set(createLinks+"/UpdateWebhookEndpoint/requestBody", "'$request.body'"),
			d.Set(payoutLinks+"/GetPayout/operationId", "getThePayout"),
		)
	})
	labels, _, _ = planLabels(t, edited, "initializePayment")
	assert.Equal(t, []string{"initializePayment", "getTransactionStatus(via GetPaymentStatus)"}, labels, "without the completion link")

	labels, from, skipped = planLabels(t, edited, "createWebhookEndpoint")
	assert.Equal(t, 0, from[len(from)-1], "the delete offered only by create's answer")
	assert.Contains(t, labels, "updateWebhookEndpoint(via UpdateWebhookEndpoint)", "the update, given a body by its link, is walked")
	assert.Empty(t, skipped)

	labels, _, skipped = planLabels(t, edited, "processPayout")
	assert.Equal(t, []string{"processPayout", "getTransactionStatus(via GetPayoutStatus)"}, labels)
	require.Len(t, skipped, 1)
	assert.Contains(t, skipped[0], `names operationId "getThePayout", which the document does not have`)
}
