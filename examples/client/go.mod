module example.com/malipo-client-example

go 1.26.0

require github.com/malipo/terraform-provider-malipo v0.0.0

// This example builds against the client in this repository; a merchant's module requires a released
// version instead and has no replace line.
replace github.com/malipo/terraform-provider-malipo => ../..
