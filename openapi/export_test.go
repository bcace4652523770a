package openapi

// ValidatorOnly is the embedded contract loaded WithoutFastPath, loaded once and shared by the tests of
// this package and of openapi_test.
var ValidatorOnly = fullOnly
