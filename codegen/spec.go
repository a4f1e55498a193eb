package codegen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"entgo.io/contrib/entoas"
	"entgo.io/ent/entc/gen"
	"github.com/ogen-go/ogen"

	"larder.dev/larder/annotate"
	"larder.dev/larder/bounds"
)

// SpecOptions says where the two descriptions go.
type SpecOptions struct {
	// Public is the published description: OpenAPI 3.1 with webhooks, response
	// headers and every error status.
	Public string
	// Server is ogen's input: the same operations, with errors folded into one
	// default response and headers left to the middleware, so every handler
	// returns plain types and every error passes through one NewError.
	Server string
}

const (
	refSchemas    = "#/components/schemas/"
	refParameters = "#/components/parameters/"
	refHeaders    = "#/components/headers/"
	refResponses  = "#/components/responses/"
	problemJSON   = "application/problem+json"
)

// BuildSpec returns the entoas mutation that replaces entoas' default output
// with this API: entoas contributes the field type mapping (entoas.OgenSchema);
// every path, envelope, parameter, error and header is built here from the
// annotations.
func BuildSpec(o SpecOptions) entoas.MutateFunc {
	return func(g *gen.Graph, spec *ogen.Spec) error {
		rs, err := loadResources(g)
		if err != nil {
			return err
		}
		b := &specBuilder{spec: spec}
		b.init()
		for _, r := range rs {
			if err := b.resource(r); err != nil {
				return fmt.Errorf("codegen: %s: %w", r.Type.Name, err)
			}
		}
		b.organization()
		b.webhooks(rs)
		b.spec.Tags = append(b.spec.Tags, ogen.Tag{Name: "Webhooks", Description: webhooksDoc})
		sort.Slice(b.spec.Tags, func(i, j int) bool { return b.spec.Tags[i].Name < b.spec.Tags[j].Name })
		return writeSpecs(spec, o)
	}
}

type specBuilder struct{ spec *ogen.Spec }

func (b *specBuilder) schemas() map[string]*ogen.Schema { return b.spec.Components.Schemas }

func ref(name string) *ogen.Schema { return &ogen.Schema{Ref: refSchemas + name} }

func (b *specBuilder) init() {
	s := b.spec
	s.OpenAPI = "3.1.0"
	s.Info = ogen.Info{
		Title:       "Larder API",
		Version:     "1.1.0",
		Description: apiDoc,
		License:     &ogen.License{Name: "Apache-2.0", URL: "https://www.apache.org/licenses/LICENSE-2.0"},
	}
	s.Servers = []ogen.Server{{URL: "http://127.0.0.1:8080/v1", Description: "larder serve on its default address"}}
	s.Paths = ogen.Paths{}
	s.Tags = nil
	s.Security = ogen.SecurityRequirements{{"bearerAuth": {}}}
	c := &ogen.Components{
		Schemas:    map[string]*ogen.Schema{},
		Parameters: map[string]*ogen.Parameter{},
		Headers:    map[string]*ogen.Header{},
		Responses:  map[string]*ogen.Response{},
		SecuritySchemes: map[string]*ogen.SecurityScheme{"bearerAuth": {
			Type:         "http",
			Scheme:       "bearer",
			BearerFormat: "key_live_… or key_test_…",
			Description:  "An API key: `Authorization: Bearer <API_KEY>`. No other mechanism exists.",
		}},
	}
	s.Components = c

	c.Schemas["Problem"] = ogen.NewSchema().
		SetDescription("An RFC 9457 problem detail.").
		AddRequiredProperties(
			ogen.String().SetDescription("URI of the problem type.").ToProperty("type"),
			ogen.String().SetDescription("Short summary of the problem type.").ToProperty("title"),
			ogen.Int().SetDescription("HTTP status.").ToProperty("status"),
			ogen.String().SetDescription("What went wrong, for people.").ToProperty("detail"),
			ogen.String().SetDescription("Machine-readable code, e.g. VALIDATION_ERROR.").ToProperty("code"),
			ogen.String().SetDescription("Equals the X-Request-Id header.").ToProperty("request_id"),
		).
		AddOptionalProperties(
			ref("ProblemField").AsArray().SetDescription("The fields at fault.").ToProperty("errors"),
		)
	c.Schemas["ProblemField"] = ogen.NewSchema().AddRequiredProperties(
		ogen.String().SetDescription(`Path of the field, e.g. "lines[0].quantity".`).ToProperty("field"),
		ogen.String().SetDescription("What is wrong with it.").ToProperty("message"),
	)
	c.Schemas["Pagination"] = ogen.NewSchema().AddRequiredProperties(
		ogen.Int().SetDescription("Page size applied.").ToProperty("limit"),
		ogen.Int().SetDescription("Rows skipped.").ToProperty("offset"),
		ogen.Int().SetDescription("Rows matching the filters.").ToProperty("total"),
		ogen.Bool().SetDescription("Whether rows follow this page.").ToProperty("has_more"),
	)

	one, zero, maxLimit, maxOffset := int64(1), int64(0), int64(200), int64(10000)
	c.Parameters["limit"] = ogen.NewParameter().InQuery().SetName("limit").
		SetDescription("Page size, 1 to 200; larger is refused with 400.").
		SetSchema(ogen.Int().SetMinimum(&one).SetMaximum(&maxLimit).SetDefault(json.RawMessage("50")))
	c.Parameters["offset"] = ogen.NewParameter().InQuery().SetName("offset").
		SetDescription("Rows to skip, 0 to 10000; larger is refused with 400. Go deeper with filters or updated_since.").
		SetSchema(ogen.Int().SetMinimum(&zero).SetMaximum(&maxOffset).SetDefault(json.RawMessage("0")))

	c.Headers["X-Request-Id"] = &ogen.Header{Description: "Generated request id (req_…); error bodies repeat it as request_id.", Schema: ogen.String()}
	c.Headers["X-RateLimit-Limit"] = &ogen.Header{Description: "Requests allowed per minute for the account.", Schema: ogen.Int()}
	c.Headers["X-RateLimit-Remaining"] = &ogen.Header{Description: "Requests left in the current window after this one.", Schema: ogen.Int()}
	c.Headers["X-RateLimit-Reset"] = &ogen.Header{Description: "Unix second at which the window resets.", Schema: ogen.Int()}
	c.Headers["Retry-After"] = &ogen.Header{Description: "Seconds to wait before retrying.", Schema: ogen.Int()}
	c.Headers["Sunset"] = &ogen.Header{Description: "RFC 8594: HTTP-date at which this key stops working (rotated key in its grace period).", Schema: ogen.String()}

	for _, e := range errorResponses {
		headers := stdHeaders()
		if e.retry {
			headers["Retry-After"] = &ogen.Header{Ref: refHeaders + "Retry-After"}
		}
		c.Responses[e.name] = ogen.NewResponse().
			SetDescription(e.desc).
			SetHeaders(headers).
			SetContent(map[string]ogen.Media{problemJSON: {Schema: ref("Problem")}})
	}
}

type errorResponse struct {
	status, name, desc string
	retry              bool
}

// errorResponses are the shared error responses, by status.
var errorResponses = []errorResponse{
	{"400", "BadRequest", "VALIDATION_ERROR: the body, a path or a query parameter is invalid; `errors` names each field.", false},
	{"401", "Unauthorized", "INVALID_API_KEY: missing, invalid, revoked or wrong-environment key (one message for every cause).", false},
	{"403", "Forbidden", "INSUFFICIENT_SCOPE, NOT_ENTITLED, or READ_ONLY_RECORD for shared or read-only rows.", false},
	{"404", "NotFound", "NOT_FOUND: no such record in this account.", false},
	{"409", "Conflict", "DUPLICATE, IN_USE, INVALID_STATE or another conflict.", false},
	{"429", "TooManyRequests", "RATE_LIMITED: over the account's requests per minute, or repeated failed authentication.", true},
	{"500", "InternalError", "INTERNAL_ERROR: a server fault; reads may be retried.", false},
	{"503", "ServiceUnavailable", "SERVICE_UNAVAILABLE: briefly out of capacity; retry with backoff and jitter.", true},
}

func stdHeaders() map[string]*ogen.Header {
	h := map[string]*ogen.Header{"X-Request-Id": {Ref: refHeaders + "X-Request-Id"}}
	for _, n := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Sunset"} {
		h[n] = &ogen.Header{Ref: refHeaders + n}
	}
	return h
}

// responses returns a success response and the error responses of the given statuses.
func responses(code, desc, schema string, errs ...string) ogen.Responses {
	resp := ogen.NewResponse().SetDescription(desc).SetHeaders(stdHeaders()).SetJSONContent(ref(schema))
	out := ogen.Responses{code: resp}
	for _, s := range errs {
		for _, e := range errorResponses {
			if e.status == s {
				out[s] = &ogen.Response{Ref: refResponses + e.name}
			}
		}
	}
	return out
}

// Error statuses per kind of operation (spec "Common rules").
var (
	listErrors   = []string{"400", "401", "403", "429", "500", "503"}
	readErrors   = []string{"400", "401", "403", "404", "429", "500", "503"}
	createErrors = []string{"400", "401", "403", "409", "429", "500", "503"}
	writeErrors  = []string{"400", "401", "403", "404", "409", "429", "500", "503"}
)

// fieldSchema is the schema of f's value: entoas' type mapping, then the
// annotations' format and bounds. Enums become one named component each.
func (b *specBuilder) fieldSchema(f *Field, nullable, bodyBounds bool) (*ogen.Schema, error) {
	var s *ogen.Schema
	switch f.Kind() {
	case "decimal", "float":
		// Every non-integer number is an exact decimal in the API (DECISIONS
		// "Input hygiene"), whatever ent stores: within the bounds a float64
		// column round-trips it digit for digit.
		s = &ogen.Schema{Type: "number", Format: annotate.FormatDecimal}
	case "date":
		s = ogen.Date()
	case "int":
		s = ogen.Int()
	default:
		es, err := entoas.OgenSchema(f.F)
		if err != nil {
			return nil, err
		}
		c := *es // entoas returns shared pointers: copy before changing
		s = &c
	}
	if f.Kind() == "enum" {
		name := f.EnumType()
		enum := *s
		enum.Default = nil
		enum.Description = f.F.Comment()
		b.schemas()[name] = &enum
		s = ref(name)
		if nullable {
			return &ogen.Schema{AllOf: []*ogen.Schema{s}, Nullable: true}, nil
		}
		return s, nil
	}
	if f.F != nil {
		s.Description = f.F.Comment()
	} else {
		s.Description = "Unique per resource type, never reused."
	}
	if s.Format == annotate.FormatDecimal {
		s.Description = strings.TrimSpace(s.Description + " " + bounds.DecimalRule)
	}
	if f.Ann.Cost {
		s.Description = strings.TrimSpace(s.Description + " Cost field: null unless the key holds cost:read.")
	}
	if f.Ann.ListNull {
		s.Description = strings.TrimSpace(s.Description + " Only on single retrieval and writes; null in lists.")
	}
	if bodyBounds {
		a := f.Ann
		s.MinLength, s.MaxLength = ptrUint(a.MinLen), ptrUint(a.MaxLen)
		if a.Min != nil {
			s.Minimum = num(*a.Min)
			s.ExclusiveMinimum = a.ExclusiveMin
		}
		if a.Max != nil {
			s.Maximum = num(*a.Max)
		}
	}
	s.Nullable = nullable
	return s, nil
}

func ptrUint(v *int64) *uint64 {
	if v == nil {
		return nil
	}
	u := uint64(*v)
	return &u
}

func num(v float64) ogen.Num {
	b, _ := json.Marshal(v)
	return ogen.Num(b)
}

func (b *specBuilder) resource(r *Resource) error {
	sc := b.schemas()
	name := r.Schema

	out := ogen.NewSchema().SetDescription(r.Ann.Description)
	snapshot := ogen.NewSchema().SetDescription("The record's top-level fields, without lines, single-only fields and cost fields.")
	for _, f := range r.Output() {
		s, err := b.fieldSchema(f, f.Nillable() || f.Ann.ListNull, false)
		if err != nil {
			return err
		}
		out.AddRequiredProperties(s.ToProperty(f.Name))
		if !f.Ann.Cost && !f.Ann.ListNull {
			snapshot.AddRequiredProperties(s.ToProperty(f.Name))
		}
	}
	if err := b.edgeProperties(out, r, ""); err != nil {
		return err
	}
	for _, g := range r.Ann.Groups {
		gs := ogen.NewSchema().SetDescription(g.Description)
		for _, f := range r.InGroup(g.Name) {
			s, err := b.fieldSchema(f, f.Nillable() || f.Ann.ListNull, false)
			if err != nil {
				return err
			}
			gs.AddRequiredProperties(s.ToProperty(f.Name))
		}
		if err := b.edgeProperties(gs, r, g.Name); err != nil {
			return err
		}
		sc[r.GroupType(g.Name)] = gs
		out.AddRequiredProperties((&ogen.Schema{
			AllOf:       []*ogen.Schema{ref(r.GroupType(g.Name))},
			Nullable:    true,
			Description: fmt.Sprintf("Populated only when %s is %s; null otherwise.", g.When, g.Is),
		}).ToProperty(g.Name))
	}
	sc[name] = out
	if len(r.Ann.Events) > 0 {
		sc[name+"Snapshot"] = snapshot
	}
	sc[name+"Data"] = ogen.NewSchema().AddRequiredProperties(ref(name).ToProperty("data"))
	pagination := ref("Pagination")
	if r.Ann.Unpaginated != "" {
		pagination = ref("Pagination").SetDescription("Every row is returned in one page.")
	}
	sc[name+"List"] = ogen.NewSchema().AddRequiredProperties(
		ref(name).AsArray().ToProperty("data"),
		pagination.ToProperty("pagination"),
		ogen.String().SetDescription(`The order applied, e.g. "name:asc,id:asc".`).ToProperty("order"),
	)

	closed := false
	if r.Has(annotate.Create) {
		create := ogen.NewSchema().SetDescription("Body of a create.")
		create.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, f := range r.Writable() {
			s, err := b.fieldSchema(f, f.NullableOnCreate(), true)
			if err != nil {
				return err
			}
			if f.RequiredOnCreate() {
				create.AddRequiredProperties(s.ToProperty(f.Name))
			} else {
				create.AddOptionalProperties(s.ToProperty(f.Name))
			}
		}
		sc[name+"Create"] = create
	}
	if r.Has(annotate.Update) {
		update := ogen.NewSchema().SetDescription(updateDoc(r))
		update.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, f := range r.Updatable() {
			s, err := b.fieldSchema(f, f.NullOnUpdate() != "", true)
			if err != nil {
				return err
			}
			if f.NullOnUpdate() == annotate.NullIgnored {
				s.Description = strings.TrimSpace(s.Description + " Null is ignored, not cleared.")
			}
			update.AddOptionalProperties(s.ToProperty(f.Name))
		}
		sc[name+"Update"] = update
	}

	b.spec.Tags = append(b.spec.Tags, ogen.Tag{Name: r.Group, Description: r.Ann.Description})
	coll, item := "/"+r.Ann.Path, "/"+r.Ann.Path+"/{"+r.Ann.Param+"}"
	one := int64(1)
	idParam := ogen.NewParameter().InPath().SetName(r.Ann.Param).SetRequired(true).
		SetDescription("Id of the record, an integer greater than 0.").
		SetSchema(ogen.Int().SetMinimum(&one))
	op := func(o annotate.Operation, summary string) *ogen.Operation {
		x := ogen.NewOperation().
			SetOperationID(r.OperationID(o)).
			SetSummary(summary).
			SetDescription(fmt.Sprintf("Requires the %s scope.", r.Scope(o))).
			AddTags(r.Group)
		return x
	}
	body := func(schema string) *ogen.RequestBody {
		return ogen.NewRequestBody().SetRequired(true).SetJSONContent(ref(schema))
	}
	human := pluralProse(r)
	if r.Has(annotate.List) {
		params, err := b.listParams(r)
		if err != nil {
			return err
		}
		path(b.spec, coll).Get = op(annotate.List, "List "+human).
			SetParameters(params).
			SetResponses(responses("200", "A page of "+human+".", name+"List", listErrors...))
	}
	if r.Has(annotate.Create) {
		path(b.spec, coll).Post = op(annotate.Create, "Create "+article(prose(name))).
			SetRequestBody(body(name + "Create")).
			SetResponses(responses("201", "Created.", name+"Data", createErrors...))
	}
	if r.Has(annotate.Read) {
		path(b.spec, item).Get = op(annotate.Read, "Retrieve "+article(prose(name))).
			AddParameters(idParam).
			SetResponses(responses("200", "The record.", name+"Data", readErrors...))
	}
	if r.Has(annotate.Update) {
		path(b.spec, item).Patch = op(annotate.Update, "Update "+article(prose(name))).
			AddParameters(idParam).
			SetRequestBody(body(name + "Update")).
			SetResponses(responses("200", "Updated.", name+"Data", writeErrors...))
	}
	if r.Has(annotate.Delete) {
		path(b.spec, item).Delete = op(annotate.Delete, "Delete "+article(prose(name))).
			AddParameters(idParam).
			SetResponses(responses("200", "Deleted; the record as it was.", name+"Data", writeErrors...))
	}
	return nil
}

// edgeProperties adds the edges of group (or the top level) to s.
func (b *specBuilder) edgeProperties(s *ogen.Schema, r *Resource, group string) error {
	for _, e := range r.EdgesInGroup(group) {
		var items *ogen.Schema
		if e.Entry == nil {
			items = ogen.Int()
		} else {
			if err := b.entry(e.Entry); err != nil {
				return err
			}
			items = ref(e.Entry.Schema)
		}
		p := items.AsArray().SetDescription(e.E.Comment())
		if e.Ann.ListNull {
			p.Nullable = true
			p.Description = strings.TrimSpace(p.Description + " Only on single retrieval; null in lists.")
		}
		s.AddRequiredProperties(p.ToProperty(e.Name()))
	}
	return nil
}

// entry adds the schema of a join entity shown as entries.
func (b *specBuilder) entry(r *Resource) error {
	s := ogen.NewSchema().SetDescription("One " + Human(r.Type) + ".")
	for _, f := range r.Fields {
		fs, err := b.fieldSchema(f, f.Nillable(), false)
		if err != nil {
			return err
		}
		s.AddRequiredProperties(fs.ToProperty(f.Name))
	}
	borrows, err := r.Borrows()
	if err != nil {
		return err
	}
	for _, bw := range borrows {
		for _, f := range bw.Fields {
			fs, err := b.fieldSchema(f, f.Nillable(), false)
			if err != nil {
				return err
			}
			s.AddRequiredProperties(fs.ToProperty(f.Name))
		}
	}
	b.schemas()[r.Schema] = s
	return nil
}

// listParams are the query parameters of a list: paging, sort, search, the
// filters and updated_since.
func (b *specBuilder) listParams(r *Resource) ([]*ogen.Parameter, error) {
	ps := []*ogen.Parameter{
		{Ref: refParameters + "limit"},
		{Ref: refParameters + "offset"},
		ogen.NewParameter().InQuery().SetName("sort").
			SetDescription("Comma-separated field:direction pairs (direction asc or desc, default asc); id is always appended. " +
				"Fields: " + strings.Join(r.Sorts(), ", ") + ".").
			SetSchema(example(ogen.String(), `"id:desc"`)),
	}
	if r.Ann.Unpaginated != "" {
		ps = nil
	}
	if searched := r.Searched(); len(searched) > 0 {
		var names, exact []string
		if r.Ann.SearchID {
			exact = append(exact, "id")
		}
		for _, f := range searched {
			if f.Ann.SearchEq {
				exact = append(exact, f.Name)
			} else {
				names = append(names, f.Name)
			}
		}
		desc := "Case-insensitive text matched within " + strings.Join(names, ", ") + "."
		if len(exact) > 0 {
			desc += " Also an exact match on " + strings.Join(exact, ", ") + "."
		}
		if r.Ann.SearchAlone {
			desc += " Cannot be combined with the named filters (400)."
		}
		desc += fmt.Sprintf(" At most %d characters.", bounds.FilterLen)
		ps = append(ps, ogen.NewParameter().InQuery().SetName("search").SetDescription(desc).SetSchema(textParam()))
	}
	for _, f := range r.Filters() {
		p := ogen.NewParameter().InQuery().SetName(filterParam(f))
		switch f.Ann.Filter {
		case annotate.Partial:
			p.SetSchema(textParam()).SetDescription(fmt.Sprintf("Case-insensitive partial match on %s, at most %d characters.", f.Name, bounds.FilterLen))
		case annotate.AnyOf:
			s, err := b.fieldSchema(f, false, false)
			if err != nil {
				return nil, err
			}
			explode := true
			p.SetSchema(s.AsArray()).SetDescription("Repeatable: matches any of the values of " + f.Name + ".")
			p.Explode = &explode
			p.Style = "form"
		default:
			s, err := b.fieldSchema(f, false, false)
			if err != nil {
				return nil, err
			}
			p.SetSchema(s).SetDescription("Exact match on " + f.Name + ".")
			if s.Type == "string" && s.Format == "" {
				s.SetMaxLength(ptrUint(&filterLen))
				p.Description = fmt.Sprintf("Exact match on %s, at most %d characters.", f.Name, bounds.FilterLen)
			}
		}
		if f.Ann.FilterRequired {
			p.SetRequired(true)
			p.Description = "Required. " + p.Description
		}
		ps = append(ps, p)
	}
	if r.Ann.UpdatedSince {
		b.spec.Components.Parameters["updated_since"] = ogen.NewParameter().InQuery().SetName("updated_since").
			SetDescription("ISO 8601 timestamp, read as UTC without an offset: only rows changed after it. " +
				"Tracks the record itself, not its child rows; deletions are not reported.").
			SetSchema(example(ogen.String(), `"2026-01-31T12:00:00Z"`))
		ps = append(ps, &ogen.Parameter{Ref: refParameters + "updated_since"})
	}
	return ps, nil
}

var filterLen = int64(bounds.FilterLen)

// textParam is the schema of a free-text query parameter: search and partial
// filters, bounded so that no pattern reaches a database limit.
func textParam() *ogen.Schema { return ogen.String().SetMaxLength(ptrUint(&filterLen)) }

func filterParam(f *Field) string {
	if f.Ann.FilterParam != "" {
		return f.Ann.FilterParam
	}
	return f.Name
}

// organization adds the account-information operation.
func (b *specBuilder) organization() {
	sc := b.schemas()
	sc["Environment"] = ogen.String().
		SetDescription("live (real data) or test (the separate test account).").
		AsEnum(nil, json.RawMessage(`"live"`), json.RawMessage(`"test"`))
	sc["Organization"] = ogen.NewSchema().
		SetDescription("The key's account and organization.").
		AddRequiredProperties(
			ogen.Int().SetDescription("Organization id.").ToProperty("id"),
			ogen.String().SetDescription("Organization name.").ToProperty("name"),
			ref("Environment").ToProperty("environment"),
			ogen.Int().SetDescription("The account the key works against.").ToProperty("account_id"),
			ogen.String().SetDescription("The organization's plan.").ToProperty("plan"),
			ogen.String().AsArray().SetDescription("Effective scopes of the key (granted plus implied).").ToProperty("scopes"),
			ogen.Int().SetDescription("Requests allowed per minute.").ToProperty("rate_limit_per_min"),
			ogen.String().SetDescription("ISO 4217 currency of amounts.").ToProperty("currency"),
		)
	sc["OrganizationData"] = ogen.NewSchema().AddRequiredProperties(ref("Organization").ToProperty("data"))
	b.spec.Tags = append(b.spec.Tags, ogen.Tag{Name: "Organization", Description: "The account-information operation."})
	op := ogen.NewOperation().
		SetOperationID(extraOperations[0].ID).
		SetSummary("Retrieve the key's account information").
		SetDescription("Needs no scope.").
		AddTags("Organization").
		SetResponses(responses("200", "The account information.", "OrganizationData", "401", "403", "429", "500", "503"))
	path(b.spec, "/organization").Get = op
}

// webhooks publishes every event type of the catalogue (annotate.Catalogue):
// a resource whose schema emits its events gets its generated snapshot schema,
// the others a generic object until their schema lands.
func (b *specBuilder) webhooks(rs []*Resource) {
	sc := b.schemas()
	sc["EventSource"] = ogen.String().
		SetDescription("What caused the change: an API call, an action in the web application, or the system.").
		AsEnum(nil, json.RawMessage(`"api"`), json.RawMessage(`"app"`), json.RawMessage(`"system"`))
	b.spec.Webhooks = map[string]*ogen.PathItem{}
	byEvent := map[string]*Resource{}
	for _, r := range rs {
		if len(r.Ann.Events) > 0 {
			byEvent[r.Event] = r
		}
	}
	for _, c := range annotate.Catalogue {
		var types []json.RawMessage
		for _, a := range c.Actions {
			types = append(types, json.RawMessage(`"`+c.Resource+"."+a+`"`))
		}
		snapshot := ogen.NewSchema().SetDescription("The record's top-level fields, without lines and cost fields " +
			"(its schema is published with the resource's endpoints).")
		if r := byEvent[c.Resource]; r != nil {
			snapshot = ref(r.Schema + "Snapshot")
		}
		event := pascal(c.Resource) + "Event"
		sc[event] = envelope(c.Resource, ogen.String().AsEnum(nil, types...), snapshot)
		for _, a := range c.Actions {
			t := c.Resource + "." + a
			b.spec.Webhooks[t] = webhook(t, pascal(strings.ReplaceAll(t, ".", "_")), "`"+t+"`: "+eventDoc(t), event)
		}
	}
	sc["PingEvent"] = envelope("ping", ogen.String().AsEnum(nil, json.RawMessage(`"ping"`)),
		ogen.NewSchema().AddRequiredProperties(ogen.Int().SetDescription("The endpoint pinged.").ToProperty("endpoint_id")))
	b.spec.Webhooks["ping"] = webhook("ping", "Ping", "`ping`: sent by the test button to the endpoint's real URL.", "PingEvent")
}

func envelope(resource string, typ, snapshot *ogen.Schema) *ogen.Schema {
	return ogen.NewSchema().
		SetDescription("Webhook envelope. Deduplicate by id; the snapshot is a routing aid, not the record.").
		AddRequiredProperties(
			ogen.String().SetDescription("Event id (evt_…), equal to the webhook-id header on every retry and resend.").ToProperty("id"),
			typ.SetDescription("Event type.").ToProperty("type"),
			ogen.DateTime().SetDescription("When the change was committed (UTC).").ToProperty("created_at"),
			ref("Environment").ToProperty("environment"),
			ref("EventSource").ToProperty("source"),
			ogen.NewSchema().SetDescription("The record the event is about (the parent document for a line change).").
				AddRequiredProperties(
					ogen.String().AsEnum(nil, json.RawMessage(`"`+resource+`"`)).ToProperty("type"),
					ogen.Int().ToProperty("id"),
				).ToProperty("resource"),
			snapshot.ToProperty("snapshot"),
		).
		AddOptionalProperties(
			ogen.Int().SetDescription("Key of the API call that caused the change (source api).").ToProperty("api_key_id"),
			ogen.String().SetDescription("Request id of the API call that caused the change (source api).").ToProperty("request_id"),
		)
}

func webhook(typ, id, desc, schema string) *ogen.PathItem {
	return ogen.NewPathItem().SetPost(ogen.NewOperation().
		SetOperationID("on" + id).
		SetSummary(typ).
		SetDescription(desc + " Signed with the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature).").
		AddTags("Webhooks").
		SetRequestBody(ogen.NewRequestBody().SetRequired(true).SetJSONContent(ref(schema))).
		SetResponses(ogen.Responses{"200": ogen.NewResponse().SetDescription("Any 2xx acknowledges the delivery; anything else, or no answer within 15 seconds, is retried.")}))
}

func eventDoc(t string) string {
	res, action, _ := strings.Cut(t, ".")
	return strings.ReplaceAll(res, "_", " ") + " " + strings.ReplaceAll(action, "_", " ") + "."
}

func updateDoc(r *Resource) string {
	d := "Body of an update: omitted fields are unchanged."
	if im := r.Immutables(); len(im) > 0 {
		names := make([]string, len(im))
		for i, f := range im {
			names[i] = f.Name
		}
		d += " " + strings.Join(names, ", ") + " cannot change (400)."
	}
	return d
}

func example(s *ogen.Schema, v string) *ogen.Schema {
	s.Example = ogen.ExampleValue(v)
	return s
}

// pluralProse is the collection in words, from its path, with the schema
// name's initialisms in capitals ("qc-checkpoints" -> "QC checkpoints").
func pluralProse(r *Resource) string {
	caps := map[string]string{}
	for _, w := range words(r.Schema) {
		if len(w) > 1 && strings.ToUpper(w) == w {
			caps[strings.ToLower(w)] = w
		}
	}
	ws := strings.Split(r.Ann.Path, "-")
	for i, w := range ws {
		if c, ok := caps[w]; ok {
			ws[i] = c
		}
	}
	return strings.Join(ws, " ")
}

func article(s string) string {
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func path(spec *ogen.Spec, p string) *ogen.PathItem {
	if spec.Paths[p] == nil {
		spec.Paths[p] = ogen.NewPathItem()
	}
	return spec.Paths[p]
}

// writeSpecs writes both descriptions as OpenAPI 3.1. The spec is shaped above,
// in Go, from the annotations; what follows only spells it in 3.1 (type lists
// for nullable, numeric exclusive bounds), which ogen's builder types cannot
// express, and derives ogen's input by folding errors and headers.
func writeSpecs(spec *ogen.Spec, o SpecOptions) error {
	pub, err := tree(spec)
	if err != nil {
		return err
	}
	decimalBounds(pub)
	to31(pub, true)
	silenceWebhookSecurity(pub)
	pub.obj("paths").set("/openapi.json", openapiPath())
	if err := writeJSON(o.Public, pub); err != nil {
		return err
	}

	srv, err := tree(spec)
	if err != nil {
		return err
	}
	srv.del("webhooks")
	groupOperations(srv)
	foldErrors(srv)
	dropUnreferenced(srv)
	validators(srv)
	to31(srv, false)
	return writeJSON(o.Server, srv)
}

// tree is the spec as an ordered JSON tree.
func tree(spec *ogen.Spec) (*object, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	v, err := parseTree(b)
	if err != nil {
		return nil, err
	}
	return v.(*object), nil
}

func writeJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o644)
}

// to31 rewrites 3.0 `nullable` into 3.1 type lists and, for the published
// description, boolean exclusive bounds into JSON Schema 2020-12 numbers (ogen
// reads the boolean form).
func to31(doc *object, numericExclusive bool) {
	walk(doc, func(v *object) {
		if nb, ok := v.vals["nullable"].(bool); ok {
			v.del("nullable")
			if t, ok := v.vals["type"].(string); ok && nb {
				v.set("type", []any{t, "null"})
				if enum, ok := v.vals["enum"].([]any); ok {
					v.set("enum", append(enum, nil))
				}
			} else if all, ok := v.vals["allOf"].([]any); ok && nb && len(all) == 1 {
				v.del("allOf")
				v.set("anyOf", []any{all[0], newObject().set("type", "null")})
			}
		}
		for _, bound := range []string{"minimum", "maximum"} {
			ex := "exclusive" + strings.ToUpper(bound[:1]) + bound[1:]
			if b, ok := v.vals[ex].(bool); ok && numericExclusive {
				v.del(ex)
				if b {
					v.set(ex, v.vals[bound])
					v.del(bound)
				}
			}
		}
	})
}

// decimalType is the Go type of every decimal in the generated server.
const decimalType = "larder.dev/larder/bounds.Decimal"

// textFormats are the string formats ogen decodes as Go strings; the others
// (date, date-time) are parsed into values and refuse bad text themselves.
var textFormats = map[string]bool{"": true, "email": true, "uri": true, "hostname": true, "password": true}

// validators makes ogen's decoding itself refuse, for every operation there
// is and will be, text that is not valid UTF-8 or holds U+0000 (the text
// validator of package bounds on every string) and decimals past the bounds
// (bounds.Decimal as the Go type of every decimal).
func validators(doc *object) {
	walk(doc, func(v *object) {
		typ, _ := v.vals["type"].(string)
		format, _ := v.vals["format"].(string)
		_, enum := v.vals["enum"]
		switch {
		case typ == "string" && textFormats[format] && !enum:
			v.set("x-ogen-validate", newObject().set(bounds.TextValidator, true))
		case typ == "number" && format == annotate.FormatDecimal:
			// bounds.Decimal decodes the number from its text and refuses it
			// past the shared bounds before any arithmetic. ogen checks no
			// range on a type of ours: the generated appliers do.
			for _, k := range []string{"format", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"} {
				v.del(k)
			}
			v.set("x-ogen-type", decimalType)
		}
	})
}

// decimalBounds publishes the magnitude bound of every decimal as exclusive
// bounds where the schema has none of its own (the digit bounds are in the
// description; JSON Schema has no word for them).
func decimalBounds(doc *object) {
	limit := json.Number("1" + strings.Repeat("0", bounds.MagnitudeExp))
	walk(doc, func(v *object) {
		if v.vals["type"] != "number" || v.vals["format"] != annotate.FormatDecimal {
			return
		}
		if _, ok := v.vals["maximum"]; !ok {
			v.set("maximum", limit)
			v.set("exclusiveMaximum", true)
		}
		if _, ok := v.vals["minimum"]; !ok {
			v.set("minimum", "-"+limit)
			v.set("exclusiveMinimum", true)
		}
	})
}

// operations calls f on every operation of the paths.
func operations(doc *object, f func(*object)) {
	paths := doc.obj("paths")
	for _, p := range paths.keys {
		item := paths.obj(p)
		for _, m := range item.keys {
			if op := item.obj(m); op != nil {
				f(op)
			}
		}
	}
}

// silenceWebhookSecurity gives webhook operations `security: []`: receivers
// verify a signature, not a key.
func silenceWebhookSecurity(doc *object) {
	whs := doc.obj("webhooks")
	if whs == nil {
		return
	}
	for _, k := range whs.keys {
		item := whs.obj(k)
		for _, m := range item.keys {
			if op := item.obj(m); op != nil {
				op.set("security", []any{})
			}
		}
	}
}

// openapiPath documents GET /openapi.json, which the server answers outside
// the generated router.
func openapiPath() *object {
	resp := newObject().
		set("description", "The description.").
		set("content", newObject().set("application/json", newObject().set("schema", newObject().set("type", "object"))))
	op := newObject().
		set("operationId", "getOpenAPI").
		set("summary", "This API description").
		set("description", "The OpenAPI 3.1 description of the API. Needs no key.").
		set("tags", []any{"Organization"}).
		set("security", []any{}).
		set("responses", newObject().
			set("200", resp).
			set("503", newObject().set("$ref", refResponses+"ServiceUnavailable")))
	return newObject().set("get", op)
}

// groupOperations gives every operation its first tag as ogen operation group,
// so ogen generates one handler interface per resource.
func groupOperations(doc *object) {
	operations(doc, func(op *object) {
		op.set("x-ogen-operation-group", op.vals["tags"].([]any)[0])
	})
}

// foldErrors replaces the error responses of every operation with one default
// response, drops response headers (middleware sets them) and keeps one
// "Problem" response component.
func foldErrors(doc *object) {
	operations(doc, func(op *object) {
		rs := op.obj("responses")
		for _, code := range append([]string(nil), rs.keys...) {
			if strings.HasPrefix(code, "2") {
				rs.obj(code).del("headers")
				continue
			}
			rs.del(code)
		}
		rs.set("default", newObject().set("$ref", refResponses+"Problem"))
	})
	comps := doc.obj("components")
	comps.del("headers")
	comps.set("responses", newObject().set("Problem", newObject().
		set("description", "An error (RFC 9457 problem detail).").
		set("content", newObject().set(problemJSON, newObject().set("schema", newObject().set("$ref", refSchemas+"Problem"))))))
}

// dropUnreferenced removes component schemas nothing refers to (webhook
// envelopes and snapshots once webhooks are gone).
func dropUnreferenced(doc *object) {
	schemas := doc.obj("components").obj("schemas")
	for {
		used := map[string]bool{}
		mark := func(o *object) {
			if r, ok := o.vals["$ref"].(string); ok && strings.HasPrefix(r, refSchemas) {
				used[strings.TrimPrefix(r, refSchemas)] = true
			}
		}
		for _, k := range doc.keys {
			if k != "components" {
				walk(doc.vals[k], mark)
			}
		}
		comps := doc.obj("components")
		for _, k := range comps.keys {
			if k != "schemas" {
				walk(comps.vals[k], mark)
			}
		}
		for _, k := range schemas.keys {
			walk(schemas.vals[k], mark)
		}
		removed := false
		for _, name := range append([]string(nil), schemas.keys...) {
			if !used[name] {
				schemas.del(name)
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}
