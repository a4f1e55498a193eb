package handlers

import (
	"context"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/go-faster/errors"
	"github.com/go-faster/jx"
	"github.com/ogen-go/ogen/ogenerrors"
	"github.com/ogen-go/ogen/uri"
	"github.com/ogen-go/ogen/validate"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/openapi/oas"
)

// The classifier reads some of what ogen and go-faster/jx say in words, or
// keep in an unexported type (errors.go, "What ogen and go-faster/jx say only
// in words"). Each case here makes the dependency produce the error and
// checks the words or the type the classifier relies on: a new version that
// words or types it differently fails here, not silently in the answers.
func TestDependencyWordings(t *testing.T) {
	t.Run("ogen v1.24.0 generated decoders wrap a field's failure in `decode field \"name\"`", func(t *testing.T) {
		var c oas.CustomerCreate
		err := c.Decode(jx.DecodeStr(`{"company":"c","customer_code":"c","address":{"city":5}}`))
		var own []string
		for e := err; e != nil; e = unwrap(e) {
			if m := ownMessage(e); m == `decode field "address"` || m == `decode field "city"` {
				own = append(own, m)
			}
		}
		if len(own) != 2 || own[0] != `decode field "address"` || own[1] != `decode field "city"` {
			t.Fatalf("the wraps of %q are not `decode field \"address\"` then `decode field \"city\"`", err)
		}
		if p := decodePath(err); p != "address.city" {
			t.Fatalf("decodePath %q, want address.city", p)
		}
	})
	t.Run("ogen v1.24.0 generated decoders refuse an unknown key with `unexpected field %q`", func(t *testing.T) {
		for key, want := range map[string]string{`colour`: `colour`, `a\"b`: `a\"b`, `\u0000`: `\x00`} {
			var c oas.AllergenCreate
			err := c.Decode(jx.DecodeStr(`{"name":"a","name_fr":"b","` + key + `":1}`))
			leaf := innermost(err)
			if leaf.Error() != `unexpected field "`+want+`"` {
				t.Fatalf("key %s: %q", key, leaf)
			}
			if name, ok := unexpectedField(leaf); !ok || name != want {
				t.Fatalf("key %s: unexpectedField %q %v, want %q", key, name, ok, want)
			}
		}
	})
	t.Run("ogen v1.24.0 validate.Int writes `value %d less than %d` and `value %d greater than %d`", func(t *testing.T) {
		cases := []struct {
			v       validate.Int
			value   int64
			message string
			want    string
		}{
			{validate.Int{MinSet: true, Min: 1}, 0, "value 0 less than 1", "must be at least 1"},
			{validate.Int{MinSet: true, Min: 0, MinExclusive: true}, 0, "value 0 less than 0", "must be greater than 0"},
			{validate.Int{MaxSet: true, Max: 200}, 201, "value 201 greater than 200", "must be at most 200"},
			{validate.Int{MaxSet: true, Max: 200, MaxExclusive: true}, 200, "value 200 greater than 200", "must be less than 200"},
		}
		for _, c := range cases {
			err := errors.Wrap(c.v.Validate(c.value), "int")
			if innermost(err).Error() != c.message {
				t.Fatalf("%+v refuses %d with %q, want %q", c.v, c.value, innermost(err), c.message)
			}
			if got := leafMessage(err); got != c.want {
				t.Fatalf("%q: %q, want %q", err, got, c.want)
			}
		}
	})
	t.Run("ogen v1.24.0 validate.String writes `value %f less than minimum %f` of a numeric string", func(t *testing.T) {
		err := validate.String{MinNumericSet: true, MinNumeric: 1.5}.Validate("0.25")
		if err == nil || err.Error() != "value 0.250000 less than minimum 1.500000" {
			t.Fatalf("%v", err)
		}
		if got := leafMessage(err); got != "must be at least 1.5" {
			t.Fatalf("%q", got)
		}
	})
	t.Run("go-faster/jx v1.2.0 refuses a byte with its unexported badTokenErr, whose Token is the byte", func(t *testing.T) {
		for _, c := range []struct {
			json  string
			read  func(d *jx.Decoder) error
			token byte
		}{
			{`null`, func(d *jx.Decoder) error { _, err := d.Str(); return err }, 'n'},
			{`null`, func(d *jx.Decoder) error { _, err := d.Int(); return err }, 'n'},
			{`null`, func(d *jx.Decoder) error { _, err := d.Bool(); return err }, 'n'},
			{`null`, func(d *jx.Decoder) error { return d.Arr(func(*jx.Decoder) error { return nil }) }, 'n'},
			{`null`, func(d *jx.Decoder) error { return d.ObjBytes(func(*jx.Decoder, []byte) error { return nil }) }, 'n'},
			{`5`, func(d *jx.Decoder) error { _, err := d.Str(); return err }, '5'},
			{`"5"`, func(d *jx.Decoder) error { _, err := d.Int(); return err }, '"'},
			{`1.5`, func(d *jx.Decoder) error { _, err := d.Int(); return err }, '.'},
		} {
			err := c.read(jx.DecodeStr(c.json))
			token, ok := badToken(innermost(err))
			if !ok || token != c.token {
				t.Fatalf("%s: %q (%T) read as token %q %v, want %q", c.json, err, innermost(err), token, ok, c.token)
			}
		}
		if _, ok := badToken(errors.New("unexpected byte 110 'n' at 0")); ok {
			t.Fatal("another error of the same words taken for jx's")
		}
	})
	t.Run("go-faster/jx v1.2.0 ends input early with io.ErrUnexpectedEOF or io.EOF itself", func(t *testing.T) {
		for _, c := range []struct {
			json string
			read func(d *jx.Decoder) error
		}{
			{`"abc`, func(d *jx.Decoder) error { _, err := d.Str(); return err }},
			{`{"a":`, func(d *jx.Decoder) error { return d.ObjBytes(func(d *jx.Decoder, _ []byte) error { return d.Skip() }) }},
			{`[1,`, func(d *jx.Decoder) error { return d.Arr(func(d *jx.Decoder) error { return d.Skip() }) }},
		} {
			err := c.read(jx.DecodeStr(c.json))
			if leaf := innermost(err); leaf != io.ErrUnexpectedEOF && leaf != io.EOF {
				t.Fatalf("%s: %q", c.json, err)
			}
			if got := leafMessage(err); got != "has the wrong type or is malformed" {
				t.Fatalf("%s: %q", c.json, got)
			}
		}
	})
	t.Run("ogen v1.24.0 generated enums refuse with `invalid value: %q` decoding and `invalid value: %v` validating", func(t *testing.T) {
		var r oas.TagRefType
		err := r.UnmarshalText([]byte("NOPE"))
		if v, ok := refusedEnum(err); !ok || v != `"NOPE"` {
			t.Fatalf("UnmarshalText: %q", err)
		}
		err = oas.TagRefType("NOPE").Validate()
		if v, ok := refusedEnum(err); !ok || v != "NOPE" {
			t.Fatalf("Validate: %q", err)
		}
		if got := leafMessage(err); got != "is not an accepted value (NOPE)" {
			t.Fatalf("%q", got)
		}
	})
	t.Run("ogen v1.24.0 generated validators refuse a nil array with `nil is invalid value`", func(t *testing.T) {
		var v *validate.Error
		if err := (&oas.BillCreate{}).Validate(); !errors.As(err, &v) {
			t.Fatalf("%v", err)
		}
		for _, f := range v.Fields {
			if f.Name == "lines" {
				if !isNilValue(f.Error) || leafMessage(f.Error) != "has the wrong type or is malformed" {
					t.Fatalf("lines: %q", f.Error)
				}
				return
			}
		}
		t.Fatalf("no failure of lines in %q", v)
	})
	t.Run("ogen v1.24.0 uri says of an absent parameter `query parameter %q not set`, `header parameter %q not set`", func(t *testing.T) {
		err := uri.NewQueryDecoder(url.Values{}).HasParam(uri.QueryParameterDecodingConfig{Name: "limit", Style: uri.QueryStyleForm, Explode: true})
		if err == nil || !paramNotSet(err) || err.Error() != `query parameter "limit" not set` {
			t.Fatalf("query: %v", err)
		}
		err = uri.NewHeaderDecoder(http.Header{}).DecodeParam(uri.HeaderParameterDecodingConfig{Name: "Idempotency-Key"}, func(d uri.Decoder) error {
			_, err := d.DecodeValue()
			return err
		})
		if err == nil || !paramNotSet(err) || err.Error() != `header parameter "Idempotency-Key" not set` {
			t.Fatalf("header: %v", err)
		}
		if got := paramMessage(oas.ListTagsOperation, "limit", errors.Wrap(err, "decode")); got != "is required" {
			t.Fatalf("%q", got)
		}
	})
}

// decodeRequest is the error of ogen's request decoder for body, decoded into
// v and validated as the generated decoder does.
func decodeRequest(op string, body string, v interface {
	Decode(*jx.Decoder) error
	Validate() error
}) error {
	d := jx.DecodeStr(body)
	err := v.Decode(d)
	if err == nil {
		if err = d.Skip(); err != io.EOF {
			err = errors.New("unexpected trailing data")
		} else {
			err = nil
		}
	}
	if err != nil {
		err = &ogenerrors.DecodeBodyError{ContentType: "application/json", Body: []byte(body), Err: err}
	} else if err = v.Validate(); err != nil {
		err = errors.Wrap(err, "validate")
	}
	if err == nil {
		return nil
	}
	return &ogenerrors.DecodeRequestError{OperationContext: ogenerrors.OperationContext{Name: op}, Err: err}
}

// withBody is ctx of a request whose body, sent with contentType, is body.
func withBody(ctx context.Context, contentType, body string) context.Context {
	raw := &rawBody{contentType: contentType}
	raw.WriteString(body)
	return context.WithValue(ctx, rawBodyKey{}, raw)
}

// The classifier fed the errors ogen's decoders and validators produce: each
// names the field, in the words of the answer.
func TestClassifyDecodeErrors(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	one := func(field, message string) []problem.FieldError {
		return []problem.FieldError{{Field: field, Message: message}}
	}
	cases := []struct {
		name, body string
		op         string
		into       func() interface {
			Decode(*jx.Decoder) error
			Validate() error
		}
		want []problem.FieldError
	}{
		{"malformed", `{"name":`, oas.CreateAllergenOperation, allergen, one("body", "is not a valid JSON object")},
		{"trailing data", `{"name":"a","name_fr":"b"} {}`, oas.CreateAllergenOperation, allergen, one("body", "is not a valid JSON object")},
		{"wrong type", `{"name":5,"name_fr":"b"}`, oas.CreateAllergenOperation, allergen, one("name", "has the wrong type or is malformed")},
		{"null", `{"name":null,"name_fr":"b"}`, oas.CreateAllergenOperation, allergen, one("name", "must not be null")},
		{"unknown field", `{"name":"a","name_fr":"b","colour":"red"}`, oas.CreateAllergenOperation, allergen, one("colour", "is not a field of this body")},
		{"missing fields", `{}`, oas.CreateAllergenOperation, allergen, []problem.FieldError{{Field: "name", Message: "is required"}, {Field: "name_fr", Message: "is required"}}},
		{"empty", `{"name":"","name_fr":"b"}`, oas.CreateAllergenOperation, allergen, one("name", "must not be empty")},
		{"nested wrong type", `{"company":"c","customer_code":"c","address":{"city":5}}`, oas.CreateCustomerOperation, customer, one("address.city", "has the wrong type or is malformed")},
		{"nested unknown field", `{"company":"c","customer_code":"c","address":{"town":"x"}}`, oas.CreateCustomerOperation, customer, one("address.town", "is not a field of this body")},
		{"exclusive minimum", `{"company":"c","customer_code":"c","customer_type_id":0}`, oas.CreateCustomerOperation, customer, one("customer_type_id", "must be greater than 0")},
		{"truncated value", `{"company":"c","customer_code":"c","email":"x`, oas.CreateCustomerOperation, customer, one("email", "has the wrong type or is malformed")},
		{"enum", `{"name":"a","ref_type":"NOPE"}`, oas.CreateTagOperation, tag, one("ref_type", "must be one of PRODUCT, CUSTOMER, SUPPLIER")},
		{"immutable", `{"ref_type":"PRODUCT"}`, oas.UpdateTagOperation, tagUpdate, one("ref_type", "cannot be changed after creation")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := decodeRequest(c.op, c.body, c.into())
			if err == nil {
				t.Fatalf("%s decodes", c.body)
			}
			p := h.classify(withBody(context.Background(), "application/json", c.body), err)
			if p.Code != problem.Validation || len(p.Fields) != len(c.want) {
				t.Fatalf("%q: %s %v", err, p.Code, p.Fields)
			}
			for i := range c.want {
				if p.Fields[i] != c.want[i] {
					t.Fatalf("%q: %v, want %v", err, p.Fields, c.want)
				}
			}
		})
	}
	t.Run("a line of a document is named", func(t *testing.T) {
		body := `{"customer_id":1,"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"},{"product_id":null,"order_qty":1,"uom_type":"BASE_UOM"}]}`
		err := decodeRequest(oas.CreateSalesOrderOperation, body, &oas.SalesOrderCreate{})
		p := h.classify(withBody(context.Background(), "application/json", body), err)
		if len(p.Fields) != 1 || p.Fields[0] != (problem.FieldError{Field: "lines[1].product_id", Message: "must not be null"}) {
			t.Fatalf("%q: %v", err, p.Fields)
		}
	})
	t.Run("media types", func(t *testing.T) {
		ctx := withBody(context.Background(), "application/json;;", `{}`)
		_, _, perr := mime.ParseMediaType("application/json;;")
		err := &ogenerrors.DecodeRequestError{Err: errors.Wrap(perr, "parse media type")}
		if p := h.classify(ctx, err); p.Code != problem.UnsupportedMediaType || p.Detail != "The body must be application/json, sent with Content-Type: application/json." {
			t.Fatalf("%s %q", p.Code, p.Detail)
		}
		err = &ogenerrors.DecodeRequestError{Err: validate.InvalidContentType("text/plain")}
		if p := h.classify(withBody(context.Background(), "text/plain", `{}`), err); p.Code != problem.UnsupportedMediaType || p.Detail != `The body must be application/json (charset utf-8, if any), not "text/plain".` {
			t.Fatalf("%s %q", p.Code, p.Detail)
		}
		if p := h.classify(context.Background(), &ogenerrors.DecodeRequestError{Err: validate.ErrBodyRequired}); p != bodyRequired {
			t.Fatalf("%v", p)
		}
	})
	t.Run("parameters", func(t *testing.T) {
		for _, c := range []struct {
			name string
			err  error
			want string
		}{
			{"limit", errors.Wrap(validate.Int{MinSet: true, Min: 1}.Validate(0), "int"), "must be at least 1"},
			{"tag_id", func() error { _, err := strconv.ParseInt("abc", 10, 64); return err }(), "must be a number of the documented type"},
			{"active", func() error { _, err := strconv.ParseBool("maybe"); return err }(), "must be true or false"},
			{"ref_type", &validate.Error{Fields: []validate.FieldError{{Name: "ref_type", Error: oas.TagRefType("NOPE").Validate()}}}, "must be one of PRODUCT, CUSTOMER, SUPPLIER"},
			{"limit", validate.ErrFieldRequired, "is required"},
		} {
			err := &ogenerrors.DecodeParamsError{
				OperationContext: ogenerrors.OperationContext{Name: oas.ListTagsOperation},
				Err:              &ogenerrors.DecodeParamError{Name: c.name, In: "query", Err: c.err},
			}
			p := h.classify(context.Background(), err)
			if len(p.Fields) != 1 || p.Fields[0] != (problem.FieldError{Field: c.name, Message: c.want}) {
				t.Fatalf("%q: %v, want %s %s", err, p.Fields, c.name, c.want)
			}
		}
	})
}

func allergen() interface {
	Decode(*jx.Decoder) error
	Validate() error
} {
	return &oas.AllergenCreate{}
}

func customer() interface {
	Decode(*jx.Decoder) error
	Validate() error
} {
	return &oas.CustomerCreate{}
}

func tag() interface {
	Decode(*jx.Decoder) error
	Validate() error
} {
	return &oas.TagCreate{}
}

func tagUpdate() interface {
	Decode(*jx.Decoder) error
	Validate() error
} {
	return &oas.TagUpdate{}
}

// The answer to a violation of the one-default index of shipping addresses
// is what its schema declares (annotate.Conflict), the one the hook gives
// when it sees the default first; an index without a declaration has none.
func TestUniqueConflictDeclared(t *testing.T) {
	p, ok := ent.UniqueConflict("shipping_addresses_one_default")
	want := problem.Conflict(problem.DefaultAddressExists, "is_default", "The customer has a default shipping address already; set its is_default to false first.")
	if !ok || p.Code != want.Code || p.Detail != want.Detail || len(p.Fields) != 1 || p.Fields[0] != want.Fields[0] || p.Status() != 409 {
		t.Fatalf("%+v %v", p, ok)
	}
	if p, ok := ent.UniqueConflict("tag_account_id_ref_type_name"); ok || p != nil {
		t.Fatalf("%+v", p)
	}
	if p, ok := ent.UniqueConflict(""); ok || p != nil {
		t.Fatalf("%+v", p)
	}
}
