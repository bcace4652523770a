package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestEveryChangeIsInTheStore is the guard that state changes go through the store (issue 24): every
// operation of the document that is not a GET is carried out against a sandbox with a data
// directory, which is then restarted on the same directory; the state read back must be the state
// left behind, to the last field, key and attempt. A handler that changed state some other way than
// through the store (or a store method that forgot its write) passes every in-memory test and fails
// here. The operations come from package api, so a new one fails this test until it is given a
// request below.
func TestEveryChangeIsInTheStore(t *testing.T) {
	dir := t.TempDir()
	rc := newReceiver(t)
	first := newEnv(t, WithDataDir(dir), WithTimings(stillTimings))
	c := first.client
	var keys []string // the Idempotency-Keys used, whose responses must replay after the restart
	var state struct {
		payRef, payoutID, endpointID, eventID string
	}
	send := func(op api.Operation, path string, body any) result {
		t.Helper()
		var opts []reqOpt
		if op.Method == http.MethodPost {
			key := fmt.Sprint("guard-", len(keys))
			keys = append(keys, key)
			opts = append(opts, withIdempotencyKey(key))
		}
		res := c.do(op.Method, path, body, opts...)
		require.Less(t, res.status, 300, "%s: %s", op.ID, res.body)
		return res
	}
	// One request per changing operation, in an order in which each finds what it needs.
	changes := []struct {
		op api.Operation
		do func(op api.Operation)
	}{
		{api.OpInitializePayment(), func(op api.Operation) {
			state.payRef = send(op, op.URL(), paymentInit(approvingPhone(t), rc.url("/pay"))).data(t)["paymentReference"].(string)
		}},
		{api.OpCompletePayment(), func(op api.Operation) { send(op, op.URL(state.payRef), nil) }},
		{api.OpSettleSandboxPayment(), func(op api.Operation) {
			send(op, op.URL(state.payRef), map[string]any{"status": "success"})
		}},
		{api.OpCreateWebhookEndpoint(), func(op api.Operation) {
			state.endpointID = send(op, op.URL(), map[string]any{"url": rc.url("/ep"), "events": []string{"payout.success"}}).data(t)["id"].(string)
		}},
		{api.OpProcessPayout(), func(op api.Operation) {
			state.payoutID = send(op, op.URL(), with(mobilePayout(creditedWallet(t)), "reference", "guard-ref", "webhook_url", rc.url("/po"))).data(t)["payout_id"].(string)
		}},
		{api.OpSettleSandboxPayout(), func(op api.Operation) {
			send(op, op.URL(state.payoutID), map[string]any{"status": "success"})
			rc.waitFor(2, forObject(state.payoutID))
			state.eventID = first.srv.RecentEvents(DefaultPublicKey, 1)[0].ID
		}},
		{api.OpUpdateWebhookEndpoint(), func(op api.Operation) {
			send(op, op.URL(state.endpointID), map[string]any{"description": "changed by the guard", "events": []string{"payout.success", "payout.failed"}})
		}},
		{api.OpRotateWebhookEndpointSecret(), func(op api.Operation) {
			send(op, op.URL(state.endpointID), map[string]any{"grace_period_seconds": 3600})
		}},
		{api.OpResendEvent(), func(op api.Operation) { send(op, op.URL(state.eventID), map[string]any{}) }},
		{api.OpDeleteWebhookEndpoint(), func(op api.Operation) {
			create := api.OpCreateWebhookEndpoint()
			id := send(create, create.URL(), map[string]any{"url": rc.url("/gone"), "events": []string{"payout.failed"}}).data(t)["id"].(string)
			send(op, op.URL(id), nil)
		}},
		{api.OpCreateSandboxDeliveryFailure(), func(op api.Operation) {
			send(op, op.URL(), map[string]any{"url": rc.url("/down"), "status_code": 502})
		}},
		{api.OpDeleteSandboxDeliveryFailure(), func(op api.Operation) {
			create := api.OpCreateSandboxDeliveryFailure()
			id := send(create, create.URL(), map[string]any{"url": rc.url("/down-briefly")}).data(t)["id"].(string)
			send(op, op.URL(id), nil)
		}},
	}
	covered := map[string]bool{}
	for _, ch := range changes {
		covered[ch.op.ID] = true
	}
	for _, op := range api.Operations() {
		if op.Method != http.MethodGet {
			require.True(t, covered[op.ID], "operation %s changes state: give it a request in TestEveryChangeIsInTheStore", op.ID)
		}
	}
	for _, ch := range changes {
		ch.do(ch.op)
	}
	// Timers still armed (stillTimings) are state too, re-armed by the restart; deliveries must be done.
	require.Eventually(t, func() bool { return first.srv.PendingDeliveries() == 0 }, 5*time.Second, time.Millisecond)
	want := storedState(t, first.srv, keys)
	first.ts.Close()
	require.NoError(t, first.srv.Close())

	second := newEnv(t, WithDataDir(dir), WithTimings(stillTimings))
	got := storedState(t, second.srv, keys)
	assert.JSONEq(t, want, got, "the state a restart reads back is the state the sandbox left")
}

// storedState is everything the store holds for every merchant, as JSON (which drops what a restart
// need not keep: monotonic clock readings), read through the store's own read methods.
func storedState(t *testing.T, s *Server, keys []string) string {
	t.Helper()
	type endpoint struct {
		Public   api.WebhookEndpoint
		Secret   string
		Previous []string
		Seeded   bool
	}
	type key struct {
		Key      string
		Response store.Response
	}
	type merchantState struct {
		Payments, Payouts []any
		Seeded            []string
		Endpoints         []endpoint
		Failures          []store.DeliveryFailure
		Keys              []key
		StoredKeys        int
	}
	all := map[string]merchantState{}
	for _, m := range s.merchants {
		m.mu.Lock()
		var ms merchantState
		payments, payouts := m.st.Payments(), m.st.Payouts()
		slices.SortFunc(payments, func(a, b Payment) int { return strings.Compare(a.PaymentReference, b.PaymentReference) })
		slices.SortFunc(payouts, func(a, b Payout) int { return strings.Compare(a.PayoutID, b.PayoutID) })
		for _, p := range payments {
			ms.Payments = append(ms.Payments, p.Payment)
			if p.Seeded {
				ms.Seeded = append(ms.Seeded, p.PaymentReference)
			}
		}
		for _, p := range payouts {
			ms.Payouts = append(ms.Payouts, p.Payout)
			if p.Seeded {
				ms.Seeded = append(ms.Seeded, p.PayoutID)
			}
		}
		for _, e := range m.st.Endpoints() {
			ep := endpoint{Public: e.Public(), Secret: e.Secret.Reveal(), Seeded: e.Seeded}
			for _, p := range e.Previous {
				ep.Previous = append(ep.Previous, p.Secret.Reveal()+" until "+p.Expires.UTC().Format(time.RFC3339Nano))
			}
			ms.Endpoints = append(ms.Endpoints, ep)
		}
		ms.Failures = m.st.Failures(time.Now())
		for _, k := range keys {
			for _, op := range api.Operations() {
				if _, kept := m.st.FindKey(op.ID+"\x00"+k, time.Now()); kept != nil {
					ms.Keys = append(ms.Keys, key{Key: op.ID + " " + k, Response: kept.Response})
				}
			}
		}
		ms.StoredKeys = m.st.StoredKeys()
		m.mu.Unlock()
		all[m.publicKey] = ms
	}
	out, err := json.Marshal(map[string]any{"merchants": all, "events": s.Events(""), "attempts": s.Attempts()})
	require.NoError(t, err)
	return string(out)
}
