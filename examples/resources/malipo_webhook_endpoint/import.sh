# Import a webhook endpoint by id. The API never returns the secret again, so after an import
# `secret` is null. A configured `secret_rotation` then rotates the secret on the next apply (the
# plan shows it), which gives Terraform a secret it knows; the old one stays valid for 24 hours.
terraform import malipo_webhook_endpoint.payouts we_4c1f9a2b7d3e8f60
