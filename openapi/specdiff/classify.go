package specdiff

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	lowv3 "github.com/pb33f/libopenapi/datamodel/low/v3"
	"github.com/pb33f/libopenapi/what-changed/model"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// testValuesKey is the extension compared by diffTestValues instead of libopenapi.
const testValuesKey = "x-malipo-test-values"

// classifier judges libopenapi's changes between two documents.
type classifier struct {
	old, new *document
	usage    usage
	// enumGone marks the enum removals that take a whole enum away (enumgone.go).
	enumGone map[*model.Change]bool
}

func newClassifier(old, updated *document) *classifier {
	return &classifier{old: old, new: updated, usage: schemaUsage(old.model, updated.model)}
}

// classify judges every change. A change to a shared component that libopenapi reports at each use
// (a parameter, a response, a header, an example) is reported once, at the component, with its uses.
func (c *classifier) classify(raw []rawChange) []Change {
	var out []Change
	grouped := map[string]int{}
	c.enumGone = c.enumsGone(raw)
	for _, r := range raw {
		if r.change.Property == testValuesKey && len(r.path) == 1 && r.path[0] == "extensions" {
			continue // compared in full by diffTestValues
		}
		p := locate(r.path)
		ch := c.judge(p, r)
		if r.ref == "" || r.refDepth > len(r.path) {
			out = append(out, ch)
			continue
		}
		use := locate(r.path[:r.refDepth])
		parts := append([]string{r.ref}, p.parts[min(len(use.parts), len(p.parts)):]...)
		if m := member(p, r.change); p.field != "" || m != "" {
			parts = append(parts, p.field+slashed(m))
		}
		ch.At = strings.Join(parts, " › ")
		key := strings.Join([]string{ch.At, ch.What, ch.Property, ch.Kind, ch.Old, ch.New}, "\x00")
		i, seen := grouped[key]
		if !seen {
			grouped[key] = len(out)
			ch.UsedBy = []string{use.at("")}
			out = append(out, ch)
			continue
		}
		merged := &out[i]
		merged.UsedBy = append(merged.UsedBy, use.at(""))
		for _, a := range ch.Breaks {
			if !slices.Contains(merged.Breaks, a) {
				merged.Breaks = append(merged.Breaks, a)
			}
			if merged.Reasons == nil {
				merged.Reasons = map[Audience]string{}
			}
			merged.Reasons[a] = joinWhy(merged.Reasons[a], ch.Reasons[a])
		}
		merged.Why = joinWhy(merged.Why, ch.Why)
	}
	for i := range out {
		sort.Strings(out[i].UsedBy)
		out[i].UsedBy = slices.Compact(out[i].UsedBy)
		sortAudiences(out[i].Breaks)
	}
	return out
}

func slashed(member string) string {
	if member == "" {
		return ""
	}
	return "/" + member
}

// member is the field a schema change adds, removes or makes required, named by the change itself.
func member(p place, c *model.Change) string {
	if (p.node == "schema") && (c.Property == "properties" || c.Property == "required") {
		return firstNonEmpty(c.New, c.Original)
	}
	return ""
}

// judge places and judges one change.
func (c *classifier) judge(p place, r rawChange) Change {
	ch := r.change
	out := Change{
		At:       p.at(member(p, ch)),
		Kind:     kindName(ch.ChangeType),
		Property: ch.Property,
		Old:      show(ch.Original),
		New:      show(ch.New),
		What:     describe(p, ch),
	}
	if ch.Context != nil {
		if ch.Context.OriginalLine != nil {
			out.OldLine = *ch.Context.OriginalLine
		}
		if ch.Context.NewLine != nil {
			out.NewLine = *ch.Context.NewLine
		}
	}
	switch {
	case p.node == "paths" && (added(ch.ChangeType) || removed(ch.ChangeType)):
		out.At = c.pathLabel(ch.Property)
	case p.node == "pathItem" && methods[ch.Property] && p.webhook == "":
		out.At = strings.ToUpper(ch.Property) + " " + p.path
	case p.node == "document" && ch.Property == "webhooks":
		out.At = "webhook " + firstNonEmpty(ch.New, ch.Original)
	}
	var v []sided
	switch p.node {
	case "schema":
		v = c.schemaVerdicts(p, ch)
	default:
		v = c.otherVerdicts(p, ch)
	}
	out.Breaks, out.Why, out.Reasons = combine(v)
	return out
}

// sided is a verdict for one audience.
type sided struct {
	audience Audience
	verdict
	where string // the side in words, when a change is judged on several ("in responses")
}

// combine merges the verdicts of a change: it breaks every audience one of them breaks, for the
// reasons of those (by audience, and all together); a change that breaks no one keeps the first reason.
func combine(vs []sided) (breaks []Audience, why string, reasons map[Audience]string) {
	for _, v := range vs {
		if !v.breaks {
			continue
		}
		if !slices.Contains(breaks, v.audience) {
			breaks = append(breaks, v.audience)
		}
		if reasons == nil {
			reasons = map[Audience]string{}
		}
		reasons[v.audience] = joinWhy(reasons[v.audience], prefixed(v))
		why = joinWhy(why, prefixed(v))
	}
	if len(breaks) == 0 {
		if len(vs) == 0 {
			return nil, "breaks no one", nil
		}
		return nil, prefixed(vs[0]), nil
	}
	sortAudiences(breaks)
	return breaks, why, reasons
}

// joinWhy adds a reason to a list of reasons, once.
func joinWhy(whys, why string) string {
	switch {
	case whys == "":
		return why
	case strings.Contains(whys, why):
		return whys
	}
	return whys + "; " + why
}

func prefixed(v sided) string {
	if v.where == "" {
		return v.why
	}
	return v.where + ": " + v.why
}

func sortAudiences(as []Audience) {
	slices.SortFunc(as, func(a, b Audience) int { return slices.Index(audiences, a) - slices.Index(audiences, b) })
}

// schemaVerdicts judges a schema change on each side the schema is used on.
func (c *classifier) schemaVerdicts(p place, ch *model.Change) []sided {
	var sides []side
	switch {
	case p.schema != "":
		sides = c.usage.sides(p.schema)
		if len(sides) == 0 {
			return []sided{{verdict: verdict{false, "the schema is not used by any operation or webhook of either document"}}}
		}
	case p.side != nil:
		sides = []side{*p.side}
	default:
		return []sided{c.flagged(p, ch)}
	}
	var out []sided
	for _, s := range sides {
		status := strings.Contains(strings.ToLower(p.schema+p.field), "status")
		v := sided{audience: s.audience, verdict: schemaVerdict(s, ch, status)}
		if c.enumGone[ch] {
			v.verdict = enumGoneVerdict(s, ch)
		}
		if len(sides) > 1 || p.schema != "" {
			v.where = "in " + s.part
		}
		out = append(out, v)
	}
	return out
}

// flagged falls back on libopenapi's own verdict, for what these rules do not know.
func (c *classifier) flagged(p place, ch *model.Change) sided {
	a := Clients
	if p.webhook != "" {
		a = Receivers
	}
	if ch.Breaking {
		return sided{audience: a, verdict: verdict{true, "libopenapi rates this change breaking"}}
	}
	return sided{audience: a, verdict: verdict{false, "libopenapi rates this change non-breaking"}}
}

// otherVerdicts judges everything but schemas.
func (c *classifier) otherVerdicts(p place, ch *model.Change) []sided {
	prop, kind := ch.Property, ch.ChangeType
	one := func(a Audience, breaks bool, why string) []sided {
		return []sided{{audience: a, verdict: verdict{breaks, why}}}
	}
	none := func(why string) []sided { return one("", false, why) }
	switch p.node {
	case "document":
		switch prop {
		case "webhooks":
			if added(kind) {
				// The Events tag promises new event types without a new API version: receivers acknowledge a
				// type they do not handle, and responses report types as AnyEventType, an open string.
				return one(Receivers, false, "the Events tag promises new event types without a new API version: receivers acknowledge (2xx) a type they do not handle, "+
					"and clients read event types as AnyEventType, an open string, so a client of the old document decodes and skips it")
			}
			if removed(kind) {
				return one(Receivers, true, "receivers that wait for this event (to settle an order, to reconcile a payout) never get it")
			}
		case "security":
			return securityVerdict(kind)
		}
		return none("describes the document, not a message")
	case "paths":
		if added(kind) {
			return none("a new path breaks no one")
		}
		if removed(kind) {
			return one(Clients, true, "clients that call it get 404")
		}
	case "pathItem", "operation":
		return c.operationVerdicts(p, ch)
	case "parameter":
		return parameterVerdicts(p, ch)
	case "requestBody", "mediaType":
		return bodyVerdicts(p, ch)
	case "responses", "response", "header":
		return responseVerdicts(p, ch)
	case "discriminator":
		sides := c.sidesOf(p)
		var out []sided
		for _, s := range sides {
			out = append(out, sided{audience: s.audience, verdict: verdict{true, "the discriminator decides which schema a body is read with, on both sides"}})
		}
		if len(out) == 0 {
			return none("the schema is not used by any operation or webhook of either document")
		}
		return out
	case "example":
		return none("examples illustrate the contract; they are not part of it")
	case "extensions":
		switch prop {
		case "x-malipo-http-status":
			return one(Clients, true, "an error code's HTTP status changes: clients that branch on the status see another one")
		case testValuesKey:
			return none("compared entry by entry below")
		case openapi.FirstRetryExtension:
			return firstRetryVerdict(kind, ch.Original, ch.New)
		case openapi.DeliveryTimeoutExtension:
			return deliveryTimeoutVerdict(kind, ch.Original, ch.New)
		}
		return none("an extension (" + prop + ") is a hint to tools, not part of any message")
	case "securityScheme":
		if slices.Contains([]string{"name", "in", "type", "scheme", "bearerFormat", "flows"}, prop) {
			return one(Clients, true, "requests must carry the key another way ("+prop+" "+show(ch.Original)+" → "+show(ch.New)+")")
		}
		return none("describes the scheme for people")
	case "securityRequirement":
		return securityVerdict(kind)
	case "components":
		return none("a component by itself is not sent; where it is used shows its own changes")
	case "documentation":
		switch prop { // the webhooks' tag carries the numbers the delivery rules give
		case openapi.FirstRetryExtension:
			return firstRetryVerdict(kind, ch.Original, ch.New)
		case openapi.DeliveryTimeoutExtension:
			return deliveryTimeoutVerdict(kind, ch.Original, ch.New)
		}
		return none("documentation only")
	}
	return []sided{c.flagged(p, ch)}
}

// pathLabel names a path added or removed by its operations ("GET /v1/countries"), from whichever
// document has it.
func (c *classifier) pathLabel(path string) string {
	for _, d := range []*document{c.old, c.new} {
		if d.model.Paths == nil {
			continue
		}
		if item, ok := d.model.Paths.PathItems.Get(path); ok && item != nil {
			var ms []string
			for m := range item.GetOperations().KeysFromOldest() {
				ms = append(ms, strings.ToUpper(m))
			}
			if len(ms) > 0 {
				return strings.Join(ms, ", ") + " " + path
			}
		}
	}
	return "path " + path
}

// sidesOf returns the sides of a place: a component schema's from its uses, an inline schema's own.
func (c *classifier) sidesOf(p place) []side {
	if p.schema != "" {
		return c.usage.sides(p.schema)
	}
	if p.side != nil {
		return []side{*p.side}
	}
	return nil
}

// securityVerdict judges a change of which keys an operation needs.
func securityVerdict(kind int) []sided {
	if removed(kind) {
		return []sided{{audience: Clients, verdict: verdict{false, "requests need fewer keys than before"}}}
	}
	return []sided{{audience: Clients, verdict: verdict{true, "requests need another key than before, which clients written for the old document do not send"}}}
}

// operationVerdicts judges changes of a path item or an operation itself.
func (c *classifier) operationVerdicts(p place, ch *model.Change) []sided {
	prop, kind := ch.Property, ch.ChangeType
	audience, who := Clients, "clients"
	if p.webhook != "" {
		audience, who = Receivers, "receivers"
	}
	one := func(breaks bool, why string) []sided {
		return []sided{{audience: audience, verdict: verdict{breaks, why}}}
	}
	switch {
	case methods[prop]:
		if added(kind) {
			return one(false, "a new operation breaks no one")
		}
		if p.webhook != "" {
			return one(true, "the event is no longer delivered: receivers that wait for it never get it")
		}
		return one(true, "clients that call it get 405")
	case prop == "parameters":
		return parameterVerdicts(p, ch)
	case prop == "requestBody":
		return bodyVerdicts(p, ch)
	case prop == "operationId":
		return one(true, "generated code names its functions after it (oapi-codegen, openapi-typescript), so "+who+" built from the old document no longer compile against the new")
	case prop == "security" || prop == "securityRequirements":
		return securityVerdict(kind)
	case slices.Contains([]string{"summary", "description", "tags", "deprecated", "externalDocs", "servers"}, prop):
		return one(false, "documentation only")
	}
	return []sided{c.flagged(p, ch)}
}

// parameterVerdicts judges a parameter added, removed or changed. Parameters of a path are sent by
// clients; the parameters of a webhook are the delivery's headers, read by receivers.
func parameterVerdicts(p place, ch *model.Change) []sided {
	s := p.in
	if p.side != nil {
		s = p.side
	}
	if s == nil {
		s = &requestSide
	}
	one := func(breaks bool, why string) []sided {
		return []sided{{audience: s.audience, verdict: verdict{breaks, why}}}
	}
	prop, kind := ch.Property, ch.ChangeType
	switch {
	case prop == "parameters" && added(kind):
		required := false
		if param, ok := ch.NewObject.(*lowv3.Parameter); ok && param != nil {
			required = param.Required.Value
		}
		switch {
		case s.produces && required:
			return one(true, "a new required parameter: requests without it are refused, and clients written for the old document do not send it")
		case s.produces:
			return one(false, "a new optional parameter: clients may leave it out")
		}
		return one(false, s.who+" ignore what they do not read")
	case prop == "parameters" && removed(kind):
		if s.produces {
			return one(true, "the service no longer reads it: clients that send it lose its effect, or are refused where unknown parameters are")
		}
		return one(true, s.who+" that read it (to verify a signature, to deduplicate) no longer get it")
	case prop == "required":
		nowRequired := ch.New == "true"
		switch {
		case s.produces && nowRequired:
			return one(true, "requests without it are refused, and clients written for the old document may not send it")
		case s.produces:
			return one(false, "clients may now leave it out")
		case nowRequired:
			return one(false, s.who+" now always get it")
		}
		return one(true, s.who+" can no longer count on getting it")
	case slices.Contains([]string{"name", "in", "style", "explode", "allowReserved", "allowEmptyValue", "schema", "content"}, prop):
		return one(true, "the parameter is sent another way ("+describeChange(ch)+"): "+s.who+" written for the old document send or read it the old way")
	case slices.Contains(documentation, prop):
		return one(false, "documentation only")
	}
	return one(ch.Breaking, "libopenapi rates this change "+map[bool]string{true: "breaking", false: "non-breaking"}[ch.Breaking])
}

// bodyVerdicts judges a request body or webhook payload as a whole: whether it is required, and its
// media types.
func bodyVerdicts(p place, ch *model.Change) []sided {
	s := p.in
	if s == nil {
		s = &requestSide
	}
	one := func(breaks bool, why string) []sided {
		return []sided{{audience: s.audience, verdict: verdict{breaks, why}}}
	}
	prop, kind := ch.Property, ch.ChangeType
	switch prop {
	case "requestBody":
		if added(kind) && !s.produces {
			return one(true, "deliveries now carry a body "+s.who+" do not expect")
		}
		if added(kind) {
			return one(true, "clients written for the old document send no body")
		}
		return one(true, "the body is no longer read: "+s.who+" lose what it carried")
	case "required":
		nowRequired := ch.New == "true"
		if s.produces == nowRequired {
			return one(s.produces, map[bool]string{true: "requests without a body are refused", false: s.who + " may now get no body"}[s.produces])
		}
		return one(false, "the body is optional on the sending side only")
	case "content":
		return contentVerdict(*s, kind)
	case "schema":
		return one(true, "the body's schema is "+kindName(kind))
	}
	if slices.Contains(documentation, prop) {
		return one(false, "documentation only")
	}
	return one(ch.Breaking, "libopenapi rates this change "+map[bool]string{true: "breaking", false: "non-breaking"}[ch.Breaking])
}

// responseVerdicts judges responses and their headers: what clients parse, or, for a webhook, what
// receivers answer.
func responseVerdicts(p place, ch *model.Change) []sided {
	s := p.out
	if s == nil {
		s = &responseSide
	}
	one := func(breaks bool, why string) []sided {
		return []sided{{audience: s.audience, verdict: verdict{breaks, why}}}
	}
	prop, kind := ch.Property, ch.ChangeType
	switch {
	case p.node == "responses" && (prop == "codes" || prop == "default" || isStatus(prop)):
		code := firstNonEmpty(ch.New, ch.Original, prop)
		switch {
		case s.produces && added(kind):
			return one(false, "the service accepts one more answer")
		case s.produces:
			return one(true, "receivers that answer "+code+" are no longer understood as they were")
		case added(kind) && strings.HasPrefix(code, "2"):
			return one(true, "a new success status: clients coded for the documented one do not expect "+code)
		case added(kind):
			return one(false, "an error status, which clients handle as any error of its class")
		}
		return one(false, "the service no longer sends "+code)
	case prop == "headers":
		if added(kind) || s.produces {
			return one(false, "a new header breaks no one: "+s.who+" ignore headers they do not read")
		}
		return one(true, s.who+" that read it no longer get it")
	case prop == "required":
		if ch.New == "true" || s.produces {
			return one(s.produces && ch.New == "true", map[bool]string{true: "answers without it are refused", false: s.who + " now always get it"}[s.produces && ch.New == "true"])
		}
		return one(true, s.who+" can no longer count on getting it")
	case prop == "content":
		return contentVerdict(*s, kind)
	case prop == "schema":
		return one(true, "the schema is "+kindName(kind))
	case slices.Contains(documentation, prop) || prop == "links":
		return one(false, "documentation only")
	}
	return one(ch.Breaking, "libopenapi rates this change "+map[bool]string{true: "breaking", false: "non-breaking"}[ch.Breaking])
}

// contentVerdict judges a media type added to or removed from a body. A media type removed breaks
// both sides: producers that send it are refused (415), consumers no longer get the body they parse.
// One added breaks no one where the client chooses (a request's type, a response's by Accept), but
// a receiver cannot choose the type of a delivery.
func contentVerdict(s side, kind int) []sided {
	one := func(breaks bool, why string) []sided {
		return []sided{{audience: s.audience, verdict: verdict{breaks, why}}}
	}
	switch {
	case removed(kind) && s.produces:
		return one(true, s.who+" that send this media type are refused (415)")
	case removed(kind):
		return one(true, s.who+" no longer get the body they parse")
	case added(kind) && !s.produces && s.audience == Receivers:
		return one(true, "deliveries may come in a media type receivers do not parse, and they cannot ask for another")
	case added(kind):
		return one(false, "one more media type, which whoever sends chooses, or asks for")
	}
	return one(true, "the media types change")
}

func isStatus(s string) bool {
	return len(s) == 3 && strings.ContainsRune("12345", rune(s[0]))
}

// describe words what changed, for people.
func describe(p place, ch *model.Change) string {
	prop, kind := ch.Property, ch.ChangeType
	name := firstNonEmpty(ch.New, ch.Original)
	switch {
	case p.node == "document" && prop == "webhooks":
		return "event type " + kindName(kind)
	case p.node == "paths":
		return "path " + kindName(kind)
	case (p.node == "pathItem" || p.node == "operation") && methods[prop]:
		return fmt.Sprintf("operation %s %s", strings.ToUpper(prop), kindName(kind))
	case prop == "parameters" && (added(kind) || removed(kind)):
		return fmt.Sprintf("parameter %s %s", name, kindName(kind))
	case prop == "headers" && (added(kind) || removed(kind)):
		return fmt.Sprintf("header %s %s", name, kindName(kind))
	case p.node == "responses" && (added(kind) || removed(kind)):
		return fmt.Sprintf("response %s %s", firstNonEmpty(name, prop), kindName(kind))
	case p.node == "schema" && prop == "properties":
		return "field " + kindName(kind)
	case p.node == "schema" && prop == "required":
		if added(kind) {
			return "now required"
		}
		return "no longer required"
	case prop == "type" && p.node == "schema":
		return "type " + strings.Join(typeList(ch.OriginalObject, ch.Original), ", ") + " → " + strings.Join(typeList(ch.NewObject, ch.New), ", ")
	case prop == "enum" && added(kind):
		return fmt.Sprintf("enum value %q added", name)
	case prop == "enum" && removed(kind):
		return fmt.Sprintf("enum value %q removed", name)
	}
	return describeChange(ch)
}

// sortChanges puts breaking changes first, then orders by place.
func sortChanges(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Breaking() != cs[j].Breaking() {
			return cs[i].Breaking()
		}
		if cs[i].At != cs[j].At {
			return cs[i].At < cs[j].At
		}
		return cs[i].What < cs[j].What
	})
}

// firstRetryVerdict judges a change of the bound on a failed delivery's first retry
// (x-malipo-first-retry-within-seconds): a new or shorter bound is a rule implementations did not
// have to keep before, so a slower retry schedule stops conforming; a longer or removed one asks less
// of them and lets receivers wait longer for a retry.
func firstRetryVerdict(kind int, original, updated string) []sided {
	switch {
	case added(kind):
		return []sided{{audience: Conformance, verdict: verdict{true, "implementations must now send a failed delivery's first retry within " + updated +
			" s; a slower retry schedule no longer conforms, and malipo conform fails a retry missing past it"}}}
	case removed(kind):
		return []sided{{audience: Receivers, verdict: verdict{false, "no bound on the first retry any more: receivers may wait longer for a retry"}}}
	}
	if secondsOf(updated) < secondsOf(original) {
		return []sided{{audience: Conformance, verdict: verdict{true, "the first retry must come sooner (" + original + " s → " + updated + " s); a slower schedule no longer conforms"}}}
	}
	return []sided{{audience: Receivers, verdict: verdict{false, "the first retry may come later (" + original + " s → " + updated + " s)"}}}
}

// deliveryTimeoutVerdict judges a change of how long a receiver has to acknowledge a delivery
// (x-malipo-delivery-timeout-seconds): shorter breaks receivers that answer within the old time.
func deliveryTimeoutVerdict(kind int, original, updated string) []sided {
	if !added(kind) && !removed(kind) && secondsOf(updated) < secondsOf(original) {
		return []sided{{audience: Receivers, verdict: verdict{true, "receivers have less time to acknowledge (" + original + " s → " + updated +
			" s): one that answered in time before may now have its deliveries counted as failed and retried"}}}
	}
	return []sided{{audience: Receivers, verdict: verdict{false, "receivers have as long or longer to acknowledge a delivery"}}}
}

func secondsOf(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return n
}
