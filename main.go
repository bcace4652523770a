// Command terraform-provider-malipo is the Terraform provider `malipo`. Terraform starts it; run it
// with -debug to attach a debugger (delve) and print the TF_REATTACH_PROVIDERS value to use.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/malipo/terraform-provider-malipo/provider"
)

// version is set by the release build (goreleaser: -X main.version={{.Version}}).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()

	opts := providerserver.ServeOpts{
		Address: "registry.terraform.io/malipo/malipo",
		Debug:   debug,
	}
	if err := providerserver.Serve(context.Background(), provider.New(version), opts); err != nil {
		log.Fatal(err.Error())
	}
}
