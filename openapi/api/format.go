package api

import (
	"fmt"
	"io"
	"reflect"
)

// formatState lets the generated Format methods of the types with optional members satisfy
// fmt.Formatter without the generated file importing fmt.
type formatState = fmt.State

// formatOptional prints v, one of the document's objects, as fmt's %v and %+v would, but with each
// optional member (a pointer field) as the value it points to, or <nil> when absent, instead of an
// address: `%+v` of a payout shows AccountNumber:0000000001, not AccountNumber:0xc000012345. %#v
// prints the type's name first and the members with their names. A member that redacts itself
// (SecretString) still does: each member is printed by its own formatting.
func formatOptional(f fmt.State, verb rune, v any) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	named := f.Flag('+') || f.Flag('#')
	member := "%v"
	if named {
		member = "%+v"
	}
	if f.Flag('#') {
		_, _ = io.WriteString(f, rt.String())
	}
	_, _ = io.WriteString(f, "{")
	for i := range rt.NumField() {
		if i > 0 {
			_, _ = io.WriteString(f, " ")
		}
		if named {
			_, _ = io.WriteString(f, rt.Field(i).Name+":")
		}
		fv := rv.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				_, _ = io.WriteString(f, "<nil>")
				continue
			}
			fv = fv.Elem()
		}
		_, _ = fmt.Fprintf(f, member, fv.Interface())
	}
	_, _ = io.WriteString(f, "}")
	_ = verb // every verb prints the values: %s and %q of an object have no better meaning
}
