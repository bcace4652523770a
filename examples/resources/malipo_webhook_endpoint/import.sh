# Import a webhook endpoint by id. The API never returns the secret again, so after an import
# `secret` is null. The imported state has no `secret_wo_version` and no `secret_rotation`, so a
# configured `secret_wo_version` sends `secret_wo` on the next apply, and a configured
# `secret_rotation` rotates to a generated secret (the plan shows either); the old secret stays valid
# for 24 hours.
terraform import malipo_webhook_endpoint.payouts we_4c1f9a2b7d3e8f60
