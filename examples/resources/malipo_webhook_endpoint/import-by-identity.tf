# Import one webhook endpoint by its resource identity (Terraform 1.12 or later, OpenTofu 1.12 or
# later): the identity names the endpoint by id, as the import by string id does.
import {
  to       = malipo_webhook_endpoint.payouts
  identity = { id = "we_4c1f9a2b7d3e8f60" }
}
