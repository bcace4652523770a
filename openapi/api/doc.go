// Package api is the Malipo v1 API as Go declarations, generated from openapi/malipo.yaml: the
// operation table, header names, error codes with their HTTP statuses, enums and wire types. The
// client, the sandbox, the contract suite and the provider import it instead of restating the document.
//
// api.gen.go is generated (go generate ./openapi/api); the other files hold the methods the generated
// declarations need, and the few facts the document states in prose only: the sandbox's scenario
// header and values (sandbox.go; TestScenarioHeaderIsDocumented holds them to the prose), which
// statuses are final (status.go), and the RateLimit fields sent together (ratelimit.go). A test
// fails when api.gen.go differs from what the generator makes of the embedded document.
package api

//go:generate go run gen.go
