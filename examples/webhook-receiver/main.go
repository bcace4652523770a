// Command webhook-receiver is a merchant's Malipo webhook receiver, complete and small enough to copy:
// webhook.Receiver verifies each delivery (Standard Webhooks signature, five-minute tolerance), answers
// a redelivery of an event it already handled without handling it twice, and hands the handler below
// the body as it came. `malipo webhooks test` passes against it:
//
//	export MALIPO_WEBHOOK_SECRET=whsec_$(head -c 32 /dev/urandom | base64)
//	go run ./examples/webhook-receiver &
//	malipo webhooks test --url http://127.0.0.1:8090/webhooks/malipo
//
// MALIPO_WEBHOOK_SECRET is the secret the deliveries are signed with: a webhook endpoint's whsec_
// secret, or the merchant secret key for deliveries to a payment's or payout's own webhook_url. During
// a rotation give both, separated by a space; a delivery verifies when either signature does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "address to listen on")
	path := flag.String("path", "/webhooks/malipo", "path deliveries are POSTed to")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	secrets, err := secretsFromEnv(os.Getenv("MALIPO_WEBHOOK_SECRET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.Handle("POST "+*path, newReceiver(secrets, log))
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("receiving Malipo webhooks", "url", "http://"+*addr+*path)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}

// secretsFromEnv parses the space-separated secrets of MALIPO_WEBHOOK_SECRET (two during a rotation).
// Errors never contain the secret.
func secretsFromEnv(env string) ([]webhook.Secret, error) {
	fields := strings.Fields(env)
	if len(fields) == 0 {
		return nil, errors.New("set MALIPO_WEBHOOK_SECRET to the endpoint's whsec_ secret, or to the merchant secret key for webhook_url deliveries")
	}
	var out []webhook.Secret
	for _, f := range fields {
		s, err := webhook.ParseSecret(f)
		if err != nil {
			return nil, fmt.Errorf("MALIPO_WEBHOOK_SECRET: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// newReceiver is the receiver: verification and dedupe by webhook.Receiver, then handleEvent.
func newReceiver(secrets []webhook.Secret, log *slog.Logger) http.Handler {
	return webhook.NewReceiver(webhook.Verifier{Secrets: secrets}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Decode leniently: events gain fields over time, and a field you do not know is no error.
		var ev struct {
			ID   string          `json:"id"`
			Type api.EventType   `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			// Signed by Malipo yet not JSON: a 4xx says so without pretending the receiver broke.
			http.Error(w, "the body is not a JSON event", http.StatusBadRequest)
			return
		}
		handleEvent(log, ev.ID, ev.Type, ev.Data)
		// Acknowledge at once, known type or not. Work that takes long belongs on a queue: the sender
		// gives up on a delivery after api.WebhookDeliveryTimeout and sends it again.
		w.WriteHeader(http.StatusNoContent)
	}))
}

// handleEvent acts on one event. New event types can be added without a new API version, so the
// default case ignores a type it does not know instead of failing on it.
func handleEvent(log *slog.Logger, id string, t api.EventType, data json.RawMessage) {
	switch t {
	case api.EventTypePaymentSuccess, api.EventTypePaymentFailed, api.EventTypePaymentProcessing:
		var d api.PaymentEventData
		if err := json.Unmarshal(data, &d); err != nil {
			// Authentic (the signature verified) but not what this code expects: never drop it silently.
			log.Error("a verified event this receiver cannot read", "event", id, "type", t, "error", err)
			return
		}
		log.Info("payment event", "event", id, "type", t, "status", d.Object.Status, "reference", d.Object.Reference)
	case api.EventTypePayoutSuccess, api.EventTypePayoutFailed:
		var d api.PayoutEventData
		if err := json.Unmarshal(data, &d); err != nil {
			log.Error("a verified event this receiver cannot read", "event", id, "type", t, "error", err)
			return
		}
		log.Info("payout event", "event", id, "type", t, "status", d.Object.Status, "reference", d.Object.Reference)
	default:
		log.Info("ignoring an event type this receiver does not handle", "event", id, "type", t)
	}
}
