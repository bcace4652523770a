# Keys are best kept out of configuration: leave them out here and export MALIPO_PUBLIC_KEY and
# MALIPO_SECRET_KEY (and MALIPO_BASE_URL) instead.
provider "malipo" {
  base_url = "http://127.0.0.1:8080" # a local `malipo sandbox`

  # Optional: requests that failed with a connection error, 429 or 5xx are retried (creates carry an
  # Idempotency-Key, so a retried payout is never paid twice).
  retry {
    attempts     = 3
    min_delay_ms = 250
    max_delay_ms = 8000
  }
  request_timeout_ms = 30000
}
