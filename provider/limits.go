package provider

import "regexp"

// Limits and patterns of openapi/malipo.yaml, so that a plan fails on what the service would reject.
// TestValidationConstantsMatchTheSpec (limits_test.go) compares every one of them with the document, so
// they cannot drift from it.
const (
	objectIDMaxLength       = 128 // ObjectId, ObjectReference
	webhookURLMinLength     = 8   // WebhookURL
	webhookURLMaxLength     = 2048
	narrationMaxLength      = 255 // Narration (minLength 1)
	descriptionMaxLength    = 255 // WebhookEndpointCreateRequest.description
	accountNumberMinLength  = 4   // BankPayoutRequest.account_number
	accountNumberMaxLength  = 34
	idempotencyKeyMaxLen    = 255 // the Idempotency-Key parameter (minLength 1)
	payoutAmountMinimum     = 1   // PayoutAmount
	payoutAmountMaximum     = 9007199254740991
	merchantReferenceMaxLen = 64     // MerchantReference (minLength 1)
	gracePeriodMaxSeconds   = 604800 // RotateSecretRequest.grace_period_seconds (minimum 0)
	gracePeriodDefault      = 86400  // its default, what the service applies when the provider sends none
	eventTypeMaxLength      = 64     // AnyEventType
)

var (
	objectIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`) // ObjectId, ObjectReference
	// webhookURLPattern is WebhookURL's pattern: RFC 3986 characters only, in explicit ASCII classes.
	webhookURLPattern    = regexp.MustCompile(`^https?://[A-Za-z0-9._~%!$&'()*+,;=:@\[\]-]+([/?#][A-Za-z0-9._~%!$&'()*+,;=:@/?#\[\]-]*)?$`)
	phoneNumberPattern   = regexp.MustCompile(`^[1-9][0-9]{7,14}$`) // PhoneNumber
	accountNumberPattern = regexp.MustCompile(`^[A-Za-z0-9]+$`)     // BankPayoutRequest.account_number
	countryCodePattern   = regexp.MustCompile(`^[A-Z]{2}$`)         // CountryCode
	// merchantReferencePattern is MerchantReference's: the merchant's own reference of a payout.
	merchantReferencePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
	// eventTypePattern is AnyEventType's: an event type this version declares or one added later.
	eventTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
	// singleLinePattern rejects line breaks, which cannot travel in a header (the idempotency key).
	singleLinePattern = regexp.MustCompile(`^[^\r\n]+$`)
	// httpURLPattern is what base_url must look like: an absolute http or https URL without a query.
	httpURLPattern = regexp.MustCompile(`^https?://[^\s/?#]+(/[^\s?#]*)?$`)
)
