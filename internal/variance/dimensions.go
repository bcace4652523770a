package variance

// The names of the dimensions, as Dimensions and Variant.Lines give them.
const (
	DimObjectIDs         = "object-ids"
	DimReferenceIDs      = "reference-data-ids"
	DimCursors           = "event-cursors"
	DimSettlement        = "settlement-delays"
	DimEventOrder        = "event-order"
	DimDuplicates        = "duplicate-deliveries"
	DimRetrySchedule     = "retry-schedule"
	DimKeyInUse          = "concurrent-idempotency-key"
	DimResponseHeaders   = "response-headers"
	DimWebhookHeaders    = "webhook-headers"
	DimJSON              = "json-encoding"
	DimTimestamps        = "timestamps"
	DimWebhookEndpoints  = "webhook-endpoints-extension"
	DimEventLogExtension = "event-log-extension"
	DimGeneratedRefs     = "generated-references"
	DimHumanText         = "human-text"
	DimErrorOrder        = "error-order"
	DimListOrder         = "reference-data-order"
	DimEventFields       = "event-fields"
	DimExampleObjects    = "example-objects"
	DimReferenceSet      = "reference-data-set"
	DimEventPages        = "event-page-size"
	DimRateLimits        = "rate-limits"
	DimEndpointSecrets   = "endpoint-secrets"
	DimNewEventTypes     = "new-event-types"
	DimRateLimitFields   = "rate-limit-fields"
	DimSlowSettlement    = "slow-settlement"
	DimLatency           = "network-latency"
)

// Citation is words of openapi/malipo.yaml: where they are, as a JSON pointer into the document, and
// what they say, quoted exactly (line breaks and indentation aside) or, for a schema keyword, its value.
type Citation struct {
	Pointer string
	Quote   string
}

// Dimension is one choice the document leaves to an implementation.
type Dimension struct {
	Name string
	// Varies says what a variant changes and how Draw draws it.
	Varies string
	// Allowed are the document's words that leave the choice open.
	Allowed []Citation
	// Silence says what the document does not say about the choice, where varying it rests on a
	// standard the document relies on (HTTP, JSON, RFC 3339, Standard Webhooks) rather than on its own
	// words; empty when the citations say it all.
	Silence string
}

// Dimensions lists every choice Draw makes, with the words of the document that allow it. The
// package's tests hold every citation to the embedded document.
func Dimensions() []Dimension {
	atLeastOnce := Citation{"#/info/description", "deduplicate on `webhook-id`: delivery is at least once."}
	return []Dimension{
		{Name: DimObjectIDs,
			Varies: "the ids of payments, payouts, webhook endpoints, events and delivery failures: each kind as the sandbox makes them, a UUID, `PO:2026.…`, 128 characters, 19 digits or 22 mixed-case characters; translated both ways in responses, webhooks, paths, queries and request bodies; the sandbox's own names of a kind the variant names otherwise are unknown to it, as to any other implementation",
			Allowed: []Citation{
				{"#/components/schemas/ObjectId/description", "An opaque id chosen by the service. Treat it as case-sensitive text."},
				{"#/components/schemas/ObjectId/pattern", "^[A-Za-z0-9][A-Za-z0-9_.:-]*$"},
				{"#/components/schemas/ObjectId/maxLength", "128"},
			}},
		{Name: DimReferenceIDs,
			Varies: "the ids of countries and banks (as the sandbox, UUID, `country:ZM` and `ZM.ZANACO`, 5 digits, 128 characters), also as a payout's countryId and bank_id and inside webhooks; the sandbox's own ids are then unknown",
			Allowed: []Citation{
				{"#/components/schemas/Country/properties/id/$ref", "#/components/schemas/ObjectId"},
				{"#/components/schemas/Bank/properties/id/$ref", "#/components/schemas/ObjectId"},
				{"#/paths/~1v1~1countries/get/description", "Countries where payouts can be sent, with the `id` to use as a payout's `countryId`."},
			}},
		{Name: DimCursors,
			Varies: "the event log's next_cursor (as the sandbox, 43 base64url characters, 128 characters), translated back in `cursor`",
			Allowed: []Citation{
				{"#/components/parameters/EventCursor/description", "A cursor is opaque: do not build or change one."},
				{"#/components/schemas/EventPage/properties/next_cursor/pattern", "^[A-Za-z0-9_-]+$"},
			}},
		{Name: DimSettlement,
			Varies: "how long a push prompt and a payout stay processing: each from 20 ms to 2 s",
			Allowed: []Citation{
				{"#/components/schemas/PaymentStatus/description", "`processing`: push prompt sent, waiting for the customer and the network."},
				{"#/paths/~1v1~1payment~1payouts~1process/post/description", "Creates a payout in status `processing`; it ends in `success` or `failed`"},
			},
			Silence: "The document sets no time for either. Draw keeps them short so that a run takes seconds."},
		{Name: DimEventOrder,
			Varies: "whether a payment's final event arrives before its payment.processing (its first attempt held back past the prompt, deliveries independent of each other)",
			Allowed: []Citation{
				{"#/tags/6/description", "No order of delivery is promised. Each event is delivered on its own, at least once, and a retried delivery can arrive after a later event of the same object."},
				{"#/tags/6/description", "Webhook deliveries the service sends; one per status change."},
			}},
		{Name: DimDuplicates,
			Varies: "whether about half the events are delivered a second time, with the same webhook-id, after the receiver acknowledged the first (an acknowledgement lost on its way back)",
			Allowed: []Citation{
				atLeastOnce,
				{"#/webhooks/payment.processing/post/parameters/0/description", "The event's `id`; the same on every retry of the delivery. Deduplicate on it."},
			}},
		{Name: DimRetrySchedule,
			Varies: "the waits between webhook attempts: the first from 20 ms to 400 ms, doubling, 2 to 6 retries",
			Allowed: []Citation{
				{"#/tags/6/description", "Retries back off exponentially. The first retry is sent no later than the number of seconds in `x-malipo-first-retry-within-seconds` (60) after the failed attempt ended; later retries may wait longer."},
				{"#/tags/6/x-malipo-first-retry-within-seconds", "60"},
				{"#/webhooks/payout.success/post/responses/5XX/description", "Not acknowledged; the delivery is retried with exponential back-off."},
			},
			Silence: "The document bounds the first wait and gives no number of attempts. Draw retries at least twice, the fewest that are a back-off at all."},
		{Name: DimKeyInUse,
			Varies: "what a request gets while an earlier one with the same merchant and Idempotency-Key is still running: it waits and gets the replay (the sandbox), or 409 idempotency_key_in_use at once",
			Allowed: []Citation{
				{"#/components/parameters/IdempotencyKey/description", "a retry while the first request is still running waits for it and replays its response, or is rejected with `409` (code 4001, retry shortly)."},
			}},
		{Name: DimResponseHeaders,
			Varies: "headers of responses: extra X-Request-Id, Server and Cache-Control; `application/json; charset=utf-8`; `Connection: close`; `Idempotent-Replayed: false` on the first answer to a POST; a 405's Allow in another order",
			Allowed: []Citation{
				{"#/components/headers/IdempotentReplayed/description", "`true` when this response is a replay of an earlier request with the same `Idempotency-Key`."},
				{"#/components/headers/IdempotentReplayed/schema/type", "boolean"},
				{"#/paths/~1v1~1payment~1payouts~1process/post/responses/201/content", "application/json"},
				{"#/info/description", "a documented path with another method answers `405` (code 3001) with an `Allow` header."},
			},
			Silence: "The document lists the headers it requires of each response and none that it forbids: HTTP (RFC 9110) lets a server send others, close a connection after any response, and list Allow's methods in any order; a media type's parameters (charset) do not make it another media type."},
		{Name: DimWebhookHeaders,
			Varies: "headers of webhook deliveries: extra X-Request-Id and X-Malipo-Attempt, another User-Agent; `application/json; charset=utf-8`",
			Allowed: []Citation{
				{"#/info/description", "Deliveries follow Standard Webhooks (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`)."},
				{"#/webhooks/payment.processing/post/requestBody/content", "application/json"},
			},
			Silence: "The document names the headers a delivery must carry and forbids none; Standard Webhooks signs the id, timestamp and body only, so other headers change nothing a receiver verifies."},
		{Name: DimJSON,
			Varies: "the text of JSON bodies, responses and webhooks alike: object members as the sandbox orders them, sorted, reversed or shuffled (fixed per seed); one line or indented; spaces after colons; `/` as `\\/`; non-ASCII and <>& as \\u escapes; a trailing newline. Numbers keep their text exactly",
			Allowed: []Citation{
				{"#/info/description", "Every JSON response has the shape `{status, code, message, data}`."},
				{"#/components/schemas/Event/properties/payload/description", "The webhook body exactly as delivered"},
			},
			Silence: "JSON (RFC 8259) gives member order and white space no meaning and lets any character of a string be escaped; the document adds no rule about the text. The event log's payload is the delivered body as a JSON value, so it is written in the same style."},
		{Name: DimTimestamps,
			Varies: "date-times in responses, webhooks and the event log: 0, 3, 6 or 9 digits of the second's fraction (the same instants, truncated), UTC as Z or +00:00; the event log's created_after and created_before are read back on the same grid",
			Allowed: []Citation{
				{"#/components/schemas/Timestamp/description", "An RFC 3339 date-time in UTC"},
				{"#/components/schemas/Timestamp/format", "date-time"},
			},
			Silence: "RFC 3339 allows a fraction of any length and writes UTC as Z or +00:00."},
		{Name: DimWebhookEndpoints,
			Varies: "whether the webhook-endpoint extension is there; without it its paths answer 404 not_found before anything else",
			Allowed: []Citation{
				{"#/tags/4/description", "An implementation without this extension answers `404` on these paths."},
				{"#/tags/4/x-malipo-extension", "true"},
			}},
		{Name: DimEventLogExtension,
			Varies: "whether the event-log extension is there; without it its paths answer 404 not_found before anything else",
			Allowed: []Citation{
				{"#/tags/5/description", "An implementation without this extension answers `404` on these paths."},
				{"#/tags/5/x-malipo-extension", "true"},
			}},
		{Name: DimGeneratedRefs,
			Varies: "the merchant reference the service generates for a payment initialized without one (as the sandbox, UUID, tagged, 64 characters, digits, mixed case), translated back where the client sends it",
			Allowed: []Citation{
				{"#/paths/~1v1~1payment~1init/post/description", "When `reference` is omitted the service generates one and returns it"},
				{"#/components/schemas/MerchantReference/pattern", "^[A-Za-z0-9][A-Za-z0-9_.:-]*$"},
				{"#/components/schemas/MerchantReference/maxLength", "64"},
			}},
		{Name: DimHumanText,
			Varies: "the words of every envelope's message and every field error's reason",
			Allowed: []Citation{
				{"#/components/schemas/PayoutResponse/properties/message/description", "What happened, for people."},
				{"#/components/schemas/Error/properties/message/description", "What went wrong and what to do, for people."},
				{"#/components/schemas/FieldError/properties/reason/description", "What is wrong with it"},
			}},
		{Name: DimErrorOrder,
			Varies: "the order of an error's field errors (reversed)",
			Allowed: []Citation{
				{"#/components/schemas/Error/properties/errors/description", "empty when the error is not about a field"},
			},
			Silence: "The document gives the field errors no order."},
		{Name: DimListOrder,
			Varies: "the order of the countries and of a country's banks (reversed)",
			Allowed: []Citation{
				{"#/paths/~1v1~1countries/get/responses/200/description", "Every supported country."},
				{"#/paths/~1v1~1payment~1banks/get/responses/200/description", "The country's banks."},
			},
			Silence: "The document orders webhook endpoints (oldest first) and events (newest first), and gives countries and banks no order."},
		{Name: DimEventFields,
			Varies: "fields the document does not declare, in every event (livemode, api_version) and in its object (channel), in deliveries and in the event log's payload alike",
			Allowed: []Citation{
				{"#/tags/6/description", "Events change only by addition: new fields can appear in any event and in its object"},
			}},
		{Name: DimExampleObjects,
			Varies: "whether the objects the document's examples name (pay_8f3a2c1d9b7e4a60, po_5d1e7b3c2a9f8e40, …) exist, as the sandbox seeds them, or only what a client creates",
			Allowed: []Citation{
				{"#/components/schemas/ErrorCode/description", "No such object for this merchant, or no such path."},
			},
			Silence: "The document's examples illustrate; nothing says their objects exist in an implementation."},
		{Name: DimReferenceSet,
			Varies: "which countries and banks are supported: all of the sandbox's, or some left out (Zambia too, in some seeds; a country may be left without banks), keeping one country with a bank for the bank test values; what is left out is not listed, its banks' listing is 400 naming query.country, and a payout naming it is 400 naming the field",
			Allowed: []Citation{
				{"#/paths/~1v1~1countries/get/description", "Countries where payouts can be sent, with the `id` to use as a payout's `countryId`."},
				{"#/paths/~1v1~1payment~1banks/get/description", "An unknown country code is rejected with `400` naming `query.country`."},
				{"#/paths/~1v1~1payment~1payouts~1process/post/description", "unknown ids, or a bank of another country, are rejected with `400` naming the field."},
			},
			Silence: "The document does not say which countries and banks an implementation supports; its examples name Zambia and its banks, and its bank test values need a bank somewhere."},
		{Name: DimEventPages,
			Varies: "how many events a page of the event log holds: as many as limit asks, or at most 1, 3 or 10 whatever it asks, with has_more and next_cursor leading on",
			Allowed: []Citation{
				{"#/paths/~1v1~1events/get/parameters/4/description", "The most events to return on one page; 20 when left out."},
				{"#/components/schemas/EventPage/properties/has_more/description", "Whether more events follow this page."},
			},
			Silence: "limit bounds a page; the document does not say a page holds that many when more follow."},
		{Name: DimRateLimits,
			Varies: "whether the service limits its clients' rate: every 25th or 40th request answered 429 rate_limited with Retry-After: 1 before anything is done, or none",
			Allowed: []Citation{
				{"#/components/responses/TooManyRequests/description", "Too many requests (code 6000); retry after `Retry-After` seconds."},
				{"#/paths/~1v1~1payment~1payouts~1process/post/responses/429/$ref", "#/components/responses/TooManyRequests"},
				{"#/components/headers/RetryAfter/description", "Seconds to wait before retrying."},
			},
			Silence: "Every operation documents 429; the document does not say when a service limits, so a client (the suite among them) meets it whenever the service chooses."},
		{Name: DimEndpointSecrets,
			Varies: "the signing secrets the service generates for webhook endpoints (create and rotate-secret without a secret of the caller's): 32 bytes as the sandbox, or 24, 48 or 64, shown in the response and signing every delivery to the endpoint",
			Allowed: []Citation{
				{"#/paths/~1v1~1webhooks/post/description", "The service generates the secret unless the body supplies one in `secret`"},
				{"#/components/schemas/WebhookEndpointWithSecret/properties/secret/pattern", "^whsec_[A-Za-z0-9+/]+={0,2}$"},
			},
			Silence: "The document sets the size of a secret the caller supplies (EndpointSecret: 24 to 64 bytes) and not of one the service generates; Draw stays within the same bounds."},
		{Name: DimNewEventTypes,
			Varies: "whether a payment's or payout's webhook_url also gets an event of a type the document does not declare (payment.created, payout.created, signed like the others) when the object is created; only in variants without the event log, which would have to list it",
			Allowed: []Citation{
				{"#/tags/6/description", "new event types can be added, without a new API version."},
				{"#/tags/6/description", "acknowledge (`2xx`) an event type you do not handle"},
			}},
		{Name: DimRateLimitFields,
			Varies: "whether responses carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (the sandbox's per-minute limit) or none of them",
			Allowed: []Citation{
				{"#/components/headers/RateLimitLimit/description", "must not rely on their presence"},
			}},
		{Name: DimSlowSettlement,
			Varies: "whether payments and payouts settle in tens of seconds, as on a staging service: one seed in six draws each delay from 10 s to 11 s, and each object settles up to 0.5 s to 1.5 s later than that (the settlement-delays above give way)",
			Allowed: []Citation{
				{"#/components/schemas/PaymentStatus/description", "`processing`: push prompt sent, waiting for the customer and the network."},
				{"#/paths/~1v1~1payment~1payouts~1process/post/description", "Creates a payout in status `processing`; it ends in `success` or `failed`"},
			},
			Silence: "The document sets no time for either, and no two objects need take the same."},
		{Name: DimLatency,
			Varies: "a network's round trip: one seed in four adds between 50 ms and 300 ms (its own range, drawn anew for each) to every answer, half before the service sees the request and half after it answered, and to every webhook attempt",
			Allowed: []Citation{
				{"#/tags/6/description", "counted from the moment the request is sent until the status line arrives."},
				{"#/tags/6/description", "No order of delivery is promised. Each event is delivered on its own, at least once, and a retried delivery can arrive after a later event of the same object."},
			},
			Silence: "The document sets no time for an answer, and HTTP sets none: a client meets the round trip of whatever network lies between it and the service, and a webhook may arrive before the answer to the request that caused it."},
	}
}
