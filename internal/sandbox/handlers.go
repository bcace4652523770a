package sandbox

import (
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

type handlerFunc func(*Server, *request) *response

// handlers maps every operation of the contract to its implementation. The keys come from package
// api, so an operation removed from the document stops the build here. New refuses nothing here:
// an operation without a handler answers 404 like an unimplemented extension, and a test checks that
// every operation of the document has one.
var handlers = map[string]handlerFunc{
	api.OpInitializePayment().ID:           (*Server).initializePayment,
	api.OpCompletePayment().ID:             (*Server).completePayment,
	api.OpGetTransactionStatus().ID:        (*Server).getTransactionStatus,
	api.OpProcessPayout().ID:               (*Server).processPayout,
	api.OpGetPayout().ID:                   (*Server).getPayout,
	api.OpListCountries().ID:               (*Server).listCountries,
	api.OpListBanks().ID:                   (*Server).listBanks,
	api.OpCreateWebhookEndpoint().ID:       (*Server).createWebhookEndpoint,
	api.OpListWebhookEndpoints().ID:        (*Server).listWebhookEndpoints,
	api.OpGetWebhookEndpoint().ID:          (*Server).getWebhookEndpoint,
	api.OpUpdateWebhookEndpoint().ID:       (*Server).updateWebhookEndpoint,
	api.OpDeleteWebhookEndpoint().ID:       (*Server).deleteWebhookEndpoint,
	api.OpRotateWebhookEndpointSecret().ID: (*Server).rotateWebhookEndpointSecret,
	// Sandbox controls (controls.go): no production implementation has these.
	api.OpSettleSandboxPayment().ID:         (*Server).settleSandboxPayment,
	api.OpSettleSandboxPayout().ID:          (*Server).settleSandboxPayout,
	api.OpCreateSandboxDeliveryFailure().ID: (*Server).createSandboxDeliveryFailure,
	api.OpListSandboxDeliveryFailures().ID:  (*Server).listSandboxDeliveryFailures,
	api.OpDeleteSandboxDeliveryFailure().ID: (*Server).deleteSandboxDeliveryFailure,
	api.OpListEvents().ID:                   (*Server).listEvents,
	api.OpGetEvent().ID:                     (*Server).getEvent,
	api.OpListEventAttempts().ID:            (*Server).listEventAttempts,
	api.OpResendEvent().ID:                  (*Server).resendEvent,
}

// decodesFirst are the handlers that decode and check their request before they take the merchant's
// lock (request.store); every other handler runs under it from the start.
var decodesFirst = map[string]bool{
	api.OpProcessPayout().ID:     true,
	api.OpInitializePayment().ID: true,
}

// isPost reports whether the request is a POST, the method the Idempotency-Key applies to.
func isPost(op *openapi.Operation) bool { return op.Method == http.MethodPost }
