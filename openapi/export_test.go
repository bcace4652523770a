package openapi

import (
	"sync"

	liberrors "github.com/pb33f/libopenapi-validator/errors"
)

// ValidatorOnly is the embedded contract loaded WithoutFastPath, loaded once and shared by the tests of
// this package and of openapi_test.
var ValidatorOnly = fullOnly

// Reworded is the embedded contract, validator only, with every message of libopenapi-validator
// replaced before it is converted: the pointers and the places in the document must come out the same,
// since a reworded message in a new release of the validator must not move them.
var Reworded = sync.OnceValues(func() (*Spec, error) {
	return Load(embeddedSpec, WithoutFastPath(), func(o *options) { o.reword = reword })
})

func reword(e *liberrors.ValidationError) {
	e.Message, e.Reason = "reworded '"+e.Message+"'", "reworded"
	for _, f := range e.SchemaValidationErrors {
		f.Reason = "reworded 'name' and 'other'"
	}
}
