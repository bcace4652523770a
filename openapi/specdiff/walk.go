package specdiff

import (
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/what-changed/model"
)

// rawChange is one change of libopenapi's what-changed report with where it sits in the report's tree.
type rawChange struct {
	// path is the change's place in the tree, one segment per level: the JSON names of libopenapi's
	// fields ("paths", "pathItems", "/v1/countries", "get", "responses", "response", "200", ...), map
	// keys, and for lists the parameter's name or the item's index.
	path []string
	// ref is the component the change was found through (`#/components/parameters/IdempotencyKey`):
	// libopenapi compares every component but schemas and security schemes where it is used, so a
	// change to a shared one is reported once per use. refDepth is how many segments of path lead to
	// the place that uses it.
	ref      string
	refDepth int
	change   *model.Change
}

var (
	propertyChangesType = reflect.TypeFor[*model.PropertyChanges]()
	changeType          = reflect.TypeFor[*model.Change]()
)

// flatten lists every change of a what-changed report with its place in the tree, in a stable order
// (libopenapi compares some parts concurrently, so the order of its lists varies from run to run).
func flatten(report *model.DocumentChanges) []rawChange {
	var out []rawChange
	if report != nil {
		walk(reflect.ValueOf(report), nil, "", 0, &out)
	}
	sort.SliceStable(out, func(i, j int) bool { return lessRaw(out[i], out[j]) })
	return out
}

func lessRaw(a, b rawChange) bool {
	if pa, pb := strings.Join(a.path, "\x00"), strings.Join(b.path, "\x00"); pa != pb {
		return pa < pb
	}
	ka := []string{a.change.Property, strconv.Itoa(a.change.ChangeType), a.change.Original, a.change.New}
	kb := []string{b.change.Property, strconv.Itoa(b.change.ChangeType), b.change.Original, b.change.New}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}

// walk visits one node of the report: a *XChanges struct, whose embedded PropertyChanges holds the
// changes at this level and whose other fields (named by their JSON tags) hold the levels below.
func walk(v reflect.Value, path []string, ref string, refDepth int, out *[]rawChange) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	// The reference first: it applies to this level's own changes too.
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type == propertyChangesType && !v.Field(i).IsNil() {
			if r := v.Field(i).Interface().(*model.PropertyChanges).ChangeReference; r != "" && ref == "" {
				ref, refDepth = r, len(path)
			}
		}
	}
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Anonymous && f.Type == propertyChangesType {
			if !fv.IsNil() {
				for _, c := range fv.Interface().(*model.PropertyChanges).Changes {
					emit(out, path, ref, refDepth, c)
				}
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		here := append(append([]string(nil), path...), name)
		switch fv.Kind() {
		case reflect.Pointer:
			if isChangesType(f.Type) {
				walk(fv, here, ref, refDepth, out)
			}
		case reflect.Map:
			if fv.Type().Key().Kind() != reflect.String || !isChangesType(fv.Type().Elem()) {
				continue
			}
			keys := fv.MapKeys()
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				walk(fv.MapIndex(k), append(here[:len(here):len(here)], k.String()), ref, refDepth, out)
			}
		case reflect.Slice:
			switch {
			case fv.Type().Elem() == changeType:
				for j := range fv.Len() {
					emit(out, here, ref, refDepth, fv.Index(j).Interface().(*model.Change))
				}
			case isChangesType(fv.Type().Elem()):
				for j := range fv.Len() {
					walk(fv.Index(j), append(here[:len(here):len(here)], itemName(fv.Index(j), j)), ref, refDepth, out)
				}
			}
		default:
		}
	}
}

func emit(out *[]rawChange, path []string, ref string, refDepth int, c *model.Change) {
	if c == nil {
		return
	}
	*out = append(*out, rawChange{path: append([]string(nil), path...), ref: ref, refDepth: refDepth, change: c})
}

// isChangesType reports whether t is one of libopenapi's *XChanges report nodes.
func isChangesType(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t.Elem().PkgPath() == propertyChangesType.Elem().PkgPath() && strings.HasSuffix(t.Elem().Name(), "Changes")
}

// itemName names a list item of the report: a parameter by its name, anything else by its index.
func itemName(v reflect.Value, i int) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Name"); f.IsValid() && f.Kind() == reflect.String && f.String() != "" {
			return f.String()
		}
	}
	return strconv.Itoa(i)
}
