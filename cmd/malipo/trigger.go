package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// `malipo trigger`: make a target emit an event type on demand, as a merchant would, by creating the
// payment or payout whose test value (x-malipo-test-values in the document) produces it. Nothing is
// faked on the target: the events and webhooks that follow are the real ones.

// triggerPlan is what trigger creates for an event type and what the target then emits.
type triggerPlan struct {
	payment             bool
	phone               string // a payment's customer number, or a mobile payout's wallet ("" pays the own wallet)
	account             string // a bank payout's account number; "" for a mobile payout
	expect              []api.EventType
	outcome, descriptor string
}

// planTrigger chooses, from the document's test values, the object that produces eventType (and, for
// a failed one, reason). Its errors say what to type instead.
func planTrigger(tv openapi.TestValues, eventType api.EventType, reason string) (triggerPlan, error) {
	if reason != "" && eventType != api.EventTypePaymentFailed && eventType != api.EventTypePayoutFailed {
		return triggerPlan{}, fmt.Errorf("--reason applies to %s and %s only", api.EventTypePaymentFailed, api.EventTypePayoutFailed)
	}
	wantStatus := string(eventType)[strings.IndexByte(string(eventType), '.')+1:]
	if eventType == api.EventTypePaymentProcessing {
		wantStatus = string(api.PaymentStatusSuccess) // any payment sends its prompt; one that then succeeds
	}
	kinds := []openapi.TestValueKind{openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts}
	if strings.HasPrefix(string(eventType), "payment.") {
		kinds = []openapi.TestValueKind{openapi.TestValuePayments}
	}
	if v, ok := tv.Find(wantStatus, reason, kinds...); ok {
		switch v.Kind {
		case openapi.TestValuePayments:
			expect := []api.EventType{api.EventTypePaymentProcessing, api.EventType("payment." + v.Status)}
			return triggerPlan{payment: true, phone: v.Input, expect: expect, outcome: outcomeWords(v.Outcome),
				descriptor: "payment from customer " + v.Input}, nil
		case openapi.TestValueMobilePayouts:
			return triggerPlan{phone: v.Input, expect: []api.EventType{eventType}, outcome: outcomeWords(v.Outcome),
				descriptor: "mobile payout to wallet " + v.Input}, nil
		default:
			return triggerPlan{account: v.Input, expect: []api.EventType{eventType}, outcome: outcomeWords(v.Outcome),
				descriptor: "bank payout to account " + v.Input}, nil
		}
	}
	if eventType == api.EventTypePayoutSuccess {
		// The document says a mobile payout to the merchant's own wallet succeeds.
		return triggerPlan{expect: []api.EventType{eventType}, outcome: "success", descriptor: "mobile payout to the merchant's own wallet"}, nil
	}
	var reasons []string // the reasons the document does have, to say what to type instead
	for _, v := range tv.Entries(kinds...) {
		if v.Status == wantStatus && v.FailureReason != "" && !slices.Contains(reasons, v.FailureReason) {
			reasons = append(reasons, v.FailureReason)
		}
	}
	if reason != "" && len(reasons) > 0 {
		return triggerPlan{}, fmt.Errorf("no test value of the document makes a %s with reason %s; use one of: %s", eventType, reason, strings.Join(reasons, ", "))
	}
	return triggerPlan{}, fmt.Errorf("no test value of the document makes a %s", eventType)
}

func outcomeWords(o openapi.Outcome) string {
	if o.FailureReason != "" {
		return o.Status + " (" + o.FailureReason + ")"
	}
	return o.Status
}

// triggerCommand is `malipo trigger`.
func (c *cli) triggerCommand() *cobra.Command {
	f := &targetFlags{}
	var reason, hookURL string
	cmd := &cobra.Command{
		Use:   "trigger EVENT_TYPE [--reason REASON] [flags]",
		Short: "make a target emit an event type, with a payment or payout whose test value produces it",
		Long: `Creates the payment or payout whose test value (x-malipo-test-values in the contract) produces the
event type, with --reason choosing the failure_reason of a failed one, and says which webhooks to
expect. A payment is initialized and completed (its prompt sent); it needs --webhook-url, which the API
requires of a payment. A payout reports to --webhook-url when one is given. Endpoints subscribed to
the type get the events too.

Event types: ` + eventTypeList() + `.
Target and keys as for 'malipo events'.`,
		Example: `  malipo trigger payout.failed --reason account_not_found
  malipo trigger payment.success --webhook-url http://127.0.0.1:9000/hooks`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usageErrorf(cmd, "give an event type: %s", eventTypeList())
			case len(args) > 1:
				return usageErrorf(cmd, "unexpected argument %q; give one event type", args[1])
			case !slices.Contains(api.EventTypeValues(), api.EventType(args[0])):
				return usageErrorf(cmd, "%q is not an event type; use one of %s", args[0], eventTypeList())
			}
			return nil
		},
		ValidArgsFunction: completeEventTypes,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := openapi.Default()
			if err != nil {
				return err
			}
			tv, err := spec.TestValues()
			if err != nil {
				return err
			}
			eventType := api.EventType(args[0])
			plan, err := planTrigger(tv, eventType, reason)
			if err != nil {
				return usageErrorf(cmd, "%v", err)
			}
			if plan.payment && hookURL == "" {
				return usageErrorf(cmd, "%s needs --webhook-url URL: the API requires a payment's webhook_url (endpoints subscribed to the type get the events too)", eventType)
			}
			cl, err := f.client(cmd)
			if err != nil {
				return err
			}
			id, err := runTrigger(cmd.Context(), cl, plan, hookURL)
			if err != nil {
				c.code = f.fail(c.stderr, cmd.CommandPath(), err)
				return nil
			}
			kind := "payout"
			if plan.payment {
				kind = "payment"
			}
			if f.output == "json" {
				return printJSON(c.stdout, map[string]any{"object": kind, "id": id, "expected_events": plan.expect, "outcome": plan.outcome})
			}
			fmt.Fprintf(c.stdout, "created %s %s: a %s, which ends %s\n", kind, id, plan.descriptor, plan.outcome)
			var types []string
			for _, t := range plan.expect {
				types = append(types, string(t))
			}
			where := "to the endpoints subscribed to them"
			if hookURL != "" {
				where = "to " + hookURL + " and " + where
			}
			fmt.Fprintf(c.stdout, "expect webhooks: %s, %s\nfollow them: malipo events list --object %s\n", strings.Join(types, " then "), where, id)
			return nil
		},
	}
	f.declare(cmd)
	cmd.Flags().StringVar(&reason, "reason", "", "the failure_reason of a failed payment or payout, e.g. account_not_found")
	cmd.Flags().Var(baseURLValue{&hookURL}, "webhook-url", "the object's webhook_url: where its events are delivered (required for payments)")
	var reasons []cobra.Completion
	for _, r := range api.FailureReasonValues() {
		reasons = append(reasons, string(r))
	}
	oneOf(cmd, "reason", reasons...)
	return cmd
}

// runTrigger creates what plan says on the target and returns its id: the payment's reference (after
// sending its prompt) or the payout's id. The country, its currency and a bank come from the
// target's own reference data.
func runTrigger(ctx context.Context, cl *client.Client, plan triggerPlan, hookURL string) (string, error) {
	countries, err := cl.ListCountries(ctx)
	if err != nil {
		return "", err
	}
	if len(countries) == 0 {
		return "", fmt.Errorf("the target lists no country (GET %s), so nothing can be created", api.OpListCountries().Path)
	}
	country := countries[0]
	narration := "malipo trigger"
	if plan.payment {
		p, err := cl.InitializePayment(ctx, client.PaymentInitRequest{Currency: country.CurrencyCode, Country: country.CountryCode,
			Narration: narration, Amount: 100, PhoneNumber: plan.phone, WebhookURL: hookURL})
		if err != nil {
			return "", err
		}
		if _, err := cl.CompletePayment(ctx, p.PaymentReference, client.PaymentCompleteRequest{}); err != nil {
			return "", err
		}
		return p.PaymentReference, nil
	}
	var req client.PayoutRequest = client.MobilePayout{Amount: 100, CountryID: country.ID, MomoPhoneNumber: plan.phone, Narration: narration, WebhookURL: hookURL}
	if plan.account != "" {
		banks, err := cl.ListBanks(ctx, country.CountryCode)
		if err != nil {
			return "", err
		}
		if len(banks) == 0 {
			return "", fmt.Errorf("the target lists no bank in %s (GET %s), so no bank payout can be created", country.CountryCode, api.OpListBanks().Path)
		}
		req = client.BankPayout{Amount: 100, CountryID: country.ID, BankID: banks[0].ID, AccountNumber: plan.account, Narration: narration, WebhookURL: hookURL}
	}
	p, err := cl.ProcessPayout(ctx, req)
	if err != nil {
		return "", err
	}
	return p.PayoutID, nil
}
