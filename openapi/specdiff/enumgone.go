package specdiff

import (
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/what-changed/model"
)

// enumsGone returns the enum removals that take a schema's whole enum away. libopenapi reports an enum
// change value by value, so "pending removed" reads the same whether the other values stay (fewer
// values: it narrows what a response may hold) or the enum itself is gone (any value of the type may
// come: it widens, which breaks a client's generated enum type). The values removed from one schema
// (one change path) are counted against the enum they were in, found in the old document at the first
// one's line and column; when they are all of it and nothing was added, the enum is gone.
func (c *classifier) enumsGone(raw []rawChange) map[*model.Change]bool {
	type group struct {
		removed []*model.Change
		added   bool
	}
	groups := map[string]*group{}
	for _, r := range raw {
		if r.change.Property != "enum" {
			continue
		}
		key := strings.Join(r.path, "\x00")
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
		}
		switch {
		case removed(r.change.ChangeType):
			g.removed = append(g.removed, r.change)
		case added(r.change.ChangeType):
			g.added = true
		}
	}
	gone := map[*model.Change]bool{}
	root := c.old.root()
	for _, g := range groups {
		if g.added || len(g.removed) == 0 || root == nil {
			continue
		}
		first := g.removed[0].Context
		if first == nil || first.OriginalLine == nil || first.OriginalColumn == nil {
			continue
		}
		seq := sequenceHolding(root, *first.OriginalLine, *first.OriginalColumn)
		if seq != nil && len(seq.Content) == len(g.removed) {
			for _, ch := range g.removed {
				gone[ch] = true
			}
		}
	}
	return gone
}

// root is the document's YAML root node, or nil.
func (d *document) root() *yaml.Node {
	if d == nil || d.doc == nil || d.doc.GetSpecInfo() == nil {
		return nil
	}
	return d.doc.GetSpecInfo().RootNode
}

// sequenceHolding returns the sequence node one of whose items starts at line and column.
func sequenceHolding(n *yaml.Node, line, column int) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		for _, item := range n.Content {
			if item.Line == line && item.Column == column {
				return n
			}
		}
	}
	for _, child := range n.Content {
		if found := sequenceHolding(child, line, column); found != nil {
			return found
		}
	}
	return nil
}
