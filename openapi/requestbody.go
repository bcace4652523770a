package openapi

import (
	"encoding/json"
	"fmt"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// RequestBodySchema returns an operation's JSON request schema, or the oneOf branch the discriminator
// value branch selects.
//
// It is a function, not a method, because its result is a libopenapi schema (see libModel).
func RequestBodySchema(op *Operation, branch string) (*base.Schema, error) {
	mt, err := jsonRequestBody(op)
	if err != nil {
		return nil, err
	}
	sch := mt.Schema.Schema()
	if branch == "" {
		return sch, nil
	}
	if sch.Discriminator == nil || sch.Discriminator.Mapping == nil {
		return nil, fmt.Errorf("operation %s: no discriminator for branch %s", op.ID, branch)
	}
	ref, ok := sch.Discriminator.Mapping.Get(branch)
	if !ok {
		return nil, fmt.Errorf("operation %s: the discriminator has no %s", op.ID, branch)
	}
	for _, p := range sch.OneOf {
		if p.GetReference() == ref {
			return p.Schema(), nil
		}
	}
	return nil, fmt.Errorf("operation %s: branch %s (%s) is not in oneOf", op.ID, branch, ref)
}

// jsonRequestBody is op's JSON request body media type, with its schema; an error when op has none.
func jsonRequestBody(op *Operation) (*v3.MediaType, error) {
	model := OperationModel(op)
	if model.RequestBody == nil || model.RequestBody.Content == nil {
		return nil, fmt.Errorf("operation %s has no request body", op.ID)
	}
	mt, ok := model.RequestBody.Content.Get(jsonMediaType)
	if !ok || mt.Schema == nil {
		return nil, fmt.Errorf("operation %s has no JSON request body", op.ID)
	}
	return mt, nil
}

// RequestExamples returns, as JSON, the examples the document gives for op's JSON request body, in the
// order a client that wants the most specific one prefers them: the media type's `examples`, then its
// `example`, then the body schema's `examples` and `example`, then (for a non-empty branch) the oneOf
// branch schema's; and the discriminator property that tells a oneOf body's branches apart ("" when
// it has none). An example that cannot be encoded as JSON ends the list: the ones before it are
// returned with the error, so that a caller that finds what it wants among them need not fail.
func (op *Operation) RequestExamples(branch string) (examples [][]byte, discriminator string, err error) {
	mt, err := jsonRequestBody(op)
	if err != nil {
		return nil, "", err
	}
	sch := mt.Schema.Schema()
	var nodes []*yaml.Node
	for _, ex := range mt.Examples.FromOldest() {
		if ex != nil {
			nodes = append(nodes, ex.Value)
		}
	}
	nodes = append(nodes, mt.Example)
	nodes = append(nodes, schemaExampleNodes(sch)...)
	if sch.Discriminator != nil {
		discriminator = sch.Discriminator.PropertyName
	}
	if branch != "" {
		bsch, err := RequestBodySchema(op, branch)
		if err != nil {
			return nil, "", err
		}
		nodes = append(nodes, schemaExampleNodes(bsch)...)
	}
	for _, node := range nodes {
		if node == nil {
			continue
		}
		var value any
		if err := node.Decode(&value); err != nil {
			return examples, discriminator, fmt.Errorf("operation %s: decode a request example: %w", op.ID, err)
		}
		data, err := json.Marshal(value)
		if err != nil {
			return examples, discriminator, fmt.Errorf("operation %s: a request example is not JSON: %w", op.ID, err)
		}
		examples = append(examples, data)
	}
	return examples, discriminator, nil
}

// schemaExampleNodes returns a schema's `examples`, then its `example`.
func schemaExampleNodes(sch *base.Schema) []*yaml.Node {
	return append(append([]*yaml.Node(nil), sch.Examples...), sch.Example)
}
