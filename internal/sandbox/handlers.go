package sandbox

import (
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// handler carries out one operation: run, under its merchant's lock, in the request's store
// transaction. A create (initialize-payment, process-payout) has prepare instead, which decodes and
// checks the request and encodes the answer before the lock, and returns what is left to do under it
// (rest), or the answer when nothing is (a refusal). idempotent runs either, in the request's phases.
type handler struct {
	run     func(*Server, *request) *response
	prepare func(*Server, *request) (rest func() *response, answer *response)
}

// handlers maps every operation of the contract to its implementation. The keys come from package
// api, so an operation removed from the document stops the build here. New refuses nothing here:
// an operation without a handler answers 404 like an unimplemented extension, and a test checks that
// every operation of the document has one.
var handlers = map[string]handler{
	api.OpInitializePayment().ID:           {prepare: (*Server).initializePayment},
	api.OpCompletePayment().ID:             {run: (*Server).completePayment},
	api.OpGetTransactionStatus().ID:        {run: (*Server).getTransactionStatus},
	api.OpProcessPayout().ID:               {prepare: (*Server).processPayout},
	api.OpGetPayout().ID:                   {run: (*Server).getPayout},
	api.OpListCountries().ID:               {run: (*Server).listCountries},
	api.OpListBanks().ID:                   {run: (*Server).listBanks},
	api.OpCreateWebhookEndpoint().ID:       {run: (*Server).createWebhookEndpoint},
	api.OpListWebhookEndpoints().ID:        {run: (*Server).listWebhookEndpoints},
	api.OpGetWebhookEndpoint().ID:          {run: (*Server).getWebhookEndpoint},
	api.OpUpdateWebhookEndpoint().ID:       {run: (*Server).updateWebhookEndpoint},
	api.OpDeleteWebhookEndpoint().ID:       {run: (*Server).deleteWebhookEndpoint},
	api.OpRotateWebhookEndpointSecret().ID: {run: (*Server).rotateWebhookEndpointSecret},
	// Sandbox controls (controls.go): no production implementation has these.
	api.OpSettleSandboxPayment().ID:         {run: (*Server).settleSandboxPayment},
	api.OpSettleSandboxPayout().ID:          {run: (*Server).settleSandboxPayout},
	api.OpCreateSandboxDeliveryFailure().ID: {run: (*Server).createSandboxDeliveryFailure},
	api.OpListSandboxDeliveryFailures().ID:  {run: (*Server).listSandboxDeliveryFailures},
	api.OpDeleteSandboxDeliveryFailure().ID: {run: (*Server).deleteSandboxDeliveryFailure},
	api.OpListEvents().ID:                   {run: (*Server).listEvents},
	api.OpGetEvent().ID:                     {run: (*Server).getEvent},
	api.OpListEventAttempts().ID:            {run: (*Server).listEventAttempts},
	api.OpResendEvent().ID:                  {run: (*Server).resendEvent},
}

// isPost reports whether the request is a POST, the method the Idempotency-Key applies to.
func isPost(op *openapi.Operation) bool { return op.Method == http.MethodPost }
