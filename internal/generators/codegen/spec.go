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

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/generators/guide"
	"larder.dev/larder/internal/platform/listing"
	"larder.dev/larder/internal/platform/problem"
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
	// Access is the access report's schema part (report.Schema), from the
	// published description and the schemas' annotations; "" writes none.
	Access string
	// Guide is the integrators' guide, whose tables of what each resource
	// allows and of the event types are written from the published
	// description (package guide); "" writes none.
	Guide string
	// Releases is the folder of the released descriptions (1.0.json, …):
	// the description's version is the newest one's.
	Releases string
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
		version, err := currentVersion(o.Releases)
		if err != nil {
			return err
		}
		b := &specBuilder{spec: spec}
		b.init(version)
		for _, r := range rs {
			if err := b.resource(r); err != nil {
				return fmt.Errorf("codegen: %s: %w", r.Type.Name, err)
			}
		}
		b.organization()
		b.trace()
		if err := b.webhooks(rs); err != nil {
			return fmt.Errorf("codegen: %w", err)
		}
		b.spec.Tags = append(b.spec.Tags, ogen.Tag{Name: "Webhooks", Description: webhooksDoc})
		sort.Slice(b.spec.Tags, func(i, j int) bool { return b.spec.Tags[i].Name < b.spec.Tags[j].Name })
		if err := writeSpecs(spec, rs, o); err != nil {
			return err
		}
		doc, err := os.ReadFile(o.Public)
		if err != nil {
			return err
		}
		if err := writeGuide(o.Guide, doc); err != nil {
			return err
		}
		if o.Access == "" {
			return nil
		}
		a, err := accessSchema(g, rs, doc)
		if err != nil {
			return err
		}
		return writeJSON(o.Access, a)
	}
}

// writeGuide writes the guide's tables from the published description doc.
func writeGuide(path string, doc []byte) error {
	if path == "" {
		return nil
	}
	ts, err := guide.Make(doc)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := ts.Write(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if out == string(b) {
		return nil
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

type specBuilder struct{ spec *ogen.Spec }

// changelogURL is where the changelog of the released descriptions is
// published, beside the problem types' pages.
const changelogURL = "https://larder.dev/docs/changelog"

// currentVersion is the version of the newest description in dir
// (MAJOR.MINOR.json) as MAJOR.MINOR.0; "1.0.0" when dir holds none.
func currentVersion(dir string) (string, error) {
	if dir == "" {
		return "1.0.0", nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	newest, nm, nn := "1.0", -1, -1
	for _, e := range entries {
		v, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		var m, n int
		if _, err := fmt.Sscanf(v, "%d.%d", &m, &n); err != nil || fmt.Sprintf("%d.%d", m, n) != v {
			return "", fmt.Errorf("codegen: %s: a release is named MAJOR.MINOR.json", filepath.Join(dir, e.Name()))
		}
		if m > nm || (m == nm && n > nn) {
			newest, nm, nn = v, m, n
		}
	}
	return newest + ".0", nil
}

func (b *specBuilder) schemas() map[string]*ogen.Schema { return b.spec.Components.Schemas }

func ref(name string) *ogen.Schema { return &ogen.Schema{Ref: refSchemas + name} }

func (b *specBuilder) init(version string) {
	s := b.spec
	s.OpenAPI = "3.1.0"
	s.Info = ogen.Info{
		Title:       "Larder API",
		Version:     version,
		Description: apiDoc,
		License:     &ogen.License{Name: "Apache-2.0", URL: "https://www.apache.org/licenses/LICENSE-2.0"},
		Contact:     &ogen.Contact{Name: "Larder", URL: "https://larder.dev"},
	}
	s.ExternalDocs = &ogen.ExternalDocumentation{
		Description: "What each release of version 1 added (docs/changelog.md)",
		URL:         changelogURL,
	}
	// Relative: the server the description is read from, whatever address
	// it listens on (a docs page's requests go back to it).
	s.Servers = []ogen.Server{{URL: "/v1", Description: "The server this description is served from."}}
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
			example(ogen.String().SetDescription("Equals the X-Request-Id header."), `"`+exampleRequestID+`"`).ToProperty("request_id"),
		).
		AddOptionalProperties(
			ref("ProblemField").AsArray().SetDescription("The fields at fault.").ToProperty("errors"),
		)
	c.Schemas["ProblemField"] = ogen.NewSchema().AddRequiredProperties(
		ogen.String().SetDescription(`Path of the field, e.g. "lines[0].quantity".`).ToProperty("field"),
		ogen.String().SetDescription("What is wrong with it.").ToProperty("message"),
	)
	c.Schemas["Pagination"] = ogen.NewSchema().AddRequiredProperties(
		example(ogen.Int().SetDescription("Page size applied."), "50").ToProperty("limit"),
		example(ogen.Int().SetDescription("Rows skipped."), "0").ToProperty("offset"),
		example(ogen.Int().SetDescription("Rows matching the filters."), "1").ToProperty("total"),
		example(ogen.Bool().SetDescription("Whether rows follow this page."), "false").ToProperty("has_more"),
		example(ogen.String().SetNullable(true).SetDescription(
			"Opaque cursor of the rows after this page, for the `cursor` parameter; null on the last page."), "null").ToProperty("next_cursor"),
	)

	one, zero, maxLimit, maxOffset := int64(1), int64(0), int64(200), int64(10000)
	c.Parameters["limit"] = ogen.NewParameter().InQuery().SetName("limit").
		SetDescription("Page size, 1 to 200; larger is refused with 400.").
		SetSchema(ogen.Int().SetMinimum(&one).SetMaximum(&maxLimit).SetDefault(json.RawMessage("50")))
	// offset states its default in words, not as the schema's default: a
	// default would be filled in before the list sees the request, which
	// could then not tell an offset sent with a cursor.
	c.Parameters["offset"] = ogen.NewParameter().InQuery().SetName("offset").
		SetDescription("Rows to skip, 0 to 10000 (default 0); larger is refused with 400. Cannot be combined with cursor (400). " +
			"Rows move between offsets when the sort key changes; walk a whole list with cursor.").
		SetSchema(ogen.Int().SetMinimum(&zero).SetMaximum(&maxOffset))
	maxCursor := uint64(listing.MaxCursor)
	c.Parameters["cursor"] = ogen.NewParameter().InQuery().SetName("cursor").
		SetDescription("A page's `pagination.next_cursor`: the page of the rows after it, in the same order. " +
			"Send it with the sort, filters and search of the page that gave it, never with offset; " +
			"a cursor from another list, sort, account or filters is refused with 400. " +
			"Every row that exists throughout a walk is returned exactly once, however rows change between pages; " +
			"a row whose sort key moves past the cursor appears again later.").
		SetSchema(ogen.String().SetMaxLength(&maxCursor))

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
			SetContent(map[string]ogen.Media{problemJSON: {Schema: ref("Problem"), Example: ogen.ExampleValue(problemExample(e.example))}})
	}
}

type errorResponse struct {
	status, name, desc string
	retry              bool
	// example is the response's example body.
	example *problem.Error
}

// errorResponses are the shared error responses, by status.
var errorResponses = []errorResponse{
	{"400", "BadRequest", "VALIDATION_ERROR: the body, a path or a query parameter is invalid; `errors` names each field.", false, problem.Invalid("lines[0].quantity", "must be greater than 0")},
	{"401", "Unauthorized", "INVALID_API_KEY: missing, invalid, revoked or wrong-environment key (one message for every cause).", false, &problem.Error{Code: problem.InvalidAPIKey, Detail: "The API key is missing or invalid."}},
	{"403", "Forbidden", "INSUFFICIENT_SCOPE, NOT_ENTITLED, or READ_ONLY_RECORD for shared or read-only rows.", false, problem.New(problem.InsufficientScope, "This operation needs the %s scope.", "products:write")},
	{"404", "NotFound", "NOT_FOUND: no such record in this account.", false, problem.New(problem.NotFound, "No such record in this account.")},
	{"405", "MethodNotAllowed", "METHOD_NOT_ALLOWED: the path exists, not with this method; Allow lists those it takes.", false, problem.New(problem.MethodNotAllowed, "%s is not allowed on %s; allowed: %s.", "PUT", "/v1/products/42", "GET")},
	{"409", "Conflict", "DUPLICATE, IN_USE, INVALID_STATE or another conflict.", false, problem.Conflict(problem.Duplicate, "code", "code is already used by another record of this account.")},
	{"413", "PayloadTooLarge", fmt.Sprintf("PAYLOAD_TOO_LARGE: the body is larger than %d bytes.", bounds.MaxBodyBytes), false, problem.New(problem.PayloadTooLarge, "The body is larger than %d bytes.", bounds.MaxBodyBytes)},
	{"415", "UnsupportedMediaType", "UNSUPPORTED_MEDIA_TYPE: the body is not application/json (a charset parameter is accepted); Accept-Post or Accept-Patch names the type.", false, problem.New(problem.UnsupportedMediaType, "The body must be application/json (charset utf-8, if any), not %q.", "text/plain")},
	{"429", "TooManyRequests", "RATE_LIMITED: over the account's requests per minute, or repeated failed authentication.", true, &problem.Error{Code: problem.RateLimited, Detail: "Over 60 requests per minute; retry after 12 seconds.", RetryAfter: 12}},
	{"500", "InternalError", "INTERNAL_ERROR: a server fault; reads may be retried.", false, problem.New(problem.Internal, "Something went wrong on our side; the request id identifies it in the server log.")},
	{"503", "ServiceUnavailable", "SERVICE_UNAVAILABLE: briefly out of capacity; retry with backoff and jitter.", true, &problem.Error{Code: problem.ServiceUnavailable, Detail: "The server is at capacity; retry with backoff.", RetryAfter: 1}},
}

// exampleRequestID is the request id the examples show.
const exampleRequestID = "req_01KAZ3R6N5V0E3H1ZB3W0M6Q2D"

// problemExample is p as the server writes it.
func problemExample(p *problem.Error) json.RawMessage {
	type field struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	}
	doc := struct {
		Type      string  `json:"type"`
		Title     string  `json:"title"`
		Status    int     `json:"status"`
		Detail    string  `json:"detail"`
		Code      string  `json:"code"`
		RequestID string  `json:"request_id"`
		Errors    []field `json:"errors,omitempty"`
	}{p.Type(), p.Title(), p.Status(), p.Detail, string(p.Code), exampleRequestID, nil}
	for _, f := range p.Fields {
		doc.Errors = append(doc.Errors, field{f.Field, f.Message})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
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

func example(s *ogen.Schema, v string) *ogen.Schema {
	s.Example = ogen.ExampleValue(v)
	return s
}

func path(spec *ogen.Spec, p string) *ogen.PathItem {
	if spec.Paths[p] == nil {
		spec.Paths[p] = ogen.NewPathItem()
	}
	return spec.Paths[p]
}
