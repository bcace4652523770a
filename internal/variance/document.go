package variance

import (
	"fmt"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// Which members of a JSON body hold what a variant rewrites is read from the document, not listed
// here: every property whose schema is ObjectId holds an id, every property that is a Timestamp (or a
// date-time) holds a date-time, and every query parameter that is a Timestamp is one. A new id or
// date-time field in the document is varied without a change to this package.

const (
	objectIDSchema  = "#/components/schemas/ObjectId"
	timestampSchema = "#/components/schemas/Timestamp"
	cursorProperty  = "next_cursor"
	// referenceProperty is the merchant reference of a payment or payout (MerchantReference): the
	// merchant's own text, except when the service generated it.
	referenceProperty = "reference"
	// secretProperty is a webhook endpoint's signing secret, in create and rotate-secret's bodies and
	// responses.
	secretProperty = "secret"
	// webhookSecretPrefix starts every Standard Webhooks secret.
	webhookSecretPrefix = "whsec_"
)

// fields are the names read from the document.
type fields struct {
	ids        map[string]bool // properties whose schema is ObjectId
	times      map[string]bool // properties that are date-times
	timeParams map[string]bool // query parameters that are date-times
	idParams   map[string]bool // path and query parameters whose schema is ObjectId
}

var documentFields = sync.OnceValues(func() (fields, error) { return readFields(openapi.YAML()) })

// readFields walks every schema's properties and every parameter of the document.
func readFields(doc []byte) (fields, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return fields{}, fmt.Errorf("variance: read the document: %w", err)
	}
	f := fields{ids: map[string]bool{}, times: map[string]bool{}, timeParams: map[string]bool{}, idParams: map[string]bool{}}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, value := n.Content[i].Value, n.Content[i+1]
				if key == "properties" && value.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(value.Content); j += 2 {
						name, schema := value.Content[j].Value, value.Content[j+1]
						if refers(schema, objectIDSchema) {
							f.ids[name] = true
						}
						if refers(schema, timestampSchema) || field(schema, "format") == "date-time" {
							f.times[name] = true
						}
					}
				}
				walk(value)
			}
			if in := field(n, "in"); (in == "query" || in == "path") && n.Kind == yaml.MappingNode {
				schema := child(n, "schema")
				if in == "query" && schema != nil && refers(schema, timestampSchema) {
					f.timeParams[field(n, "name")] = true
				}
				if schema != nil && refers(schema, objectIDSchema) {
					f.idParams[field(n, "name")] = true
				}
			}
		}
	}
	walk(&root)
	if len(f.ids) == 0 || len(f.times) == 0 {
		return fields{}, fmt.Errorf("variance: the document has no property of schema %s or %s; the variance layer needs both", objectIDSchema, timestampSchema)
	}
	return f, nil
}

// refers reports whether a schema is ref, directly or as a member of its allOf.
func refers(schema *yaml.Node, ref string) bool {
	if field(schema, "$ref") == ref {
		return true
	}
	if all := child(schema, "allOf"); all != nil {
		for _, s := range all.Content {
			if field(s, "$ref") == ref {
				return true
			}
		}
	}
	return false
}

func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func field(n *yaml.Node, key string) string {
	if c := child(n, key); c != nil && c.Kind == yaml.ScalarNode {
		return c.Value
	}
	return ""
}
