package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/go-faster/jx"
	"github.com/ogen-go/ogen/ogenerrors"
	"github.com/ogen-go/ogen/validate"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/dberror"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi/oas"
)

// This file is the one place where errors become HTTP responses: handler
// errors (through NewError), decode, parameter and security errors (through
// ogen's error handler), unknown routes, wrong methods, panics and middleware
// refusals all pass through classify and write the same RFC 9457 body.

// NewError implements oas.Handler: the error of a handler becomes a problem.
func (h *Handler) NewError(ctx context.Context, err error) *oas.ProblemStatusCode {
	p := h.classify(ctx, err)
	setRetryAfter(ctx, p)
	if hdr := responseHeader(ctx); hdr != nil {
		challenge(ctx, hdr, p)
	}
	return &oas.ProblemStatusCode{StatusCode: p.Status(), Response: body(ctx, p)}
}

// writeError writes err as a problem: used for everything that does not reach
// a handler.
func (h *Handler) writeError(ctx context.Context, w http.ResponseWriter, err error) {
	writeProblem(ctx, w, h.classify(ctx, err))
}

// writeProblem writes p with its status and headers.
func writeProblem(ctx context.Context, w http.ResponseWriter, p *problem.Error) {
	if p.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	challenge(ctx, w.Header(), p)
	b := body(ctx, p)
	var e jx.Encoder
	b.Encode(&e)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(e.Bytes())))
	w.WriteHeader(p.Status())
	_, _ = w.Write(e.Bytes())
}

// challenge sets, on a 401, the WWW-Authenticate that HTTP requires of one
// (RFC 9110, section 11.6.1) in the form of bearer tokens (RFC 6750, section
// 3): the realm, and error="invalid_token" when the request presented a
// bearer token; a request without one (no Authorization, or another scheme)
// is told no more than the realm. A challenge set before (the metrics
// token's realm) is kept.
func challenge(ctx context.Context, h http.Header, p *problem.Error) {
	if p.Status() != http.StatusUnauthorized || h.Get("WWW-Authenticate") != "" {
		return
	}
	if exchangeOf(ctx).presented() {
		h["Www-Authenticate"] = invalidToken
		return
	}
	h["Www-Authenticate"] = bearerRealm
}

// The challenges of a 401, by WWW-Authenticate's canonical key.
var (
	bearerRealm  = []string{`Bearer realm="larder"`}
	invalidToken = []string{`Bearer realm="larder", error="invalid_token"`}
)

// body is the problem document of p.
func body(ctx context.Context, p *problem.Error) oas.Problem {
	out := oas.Problem{
		Type:      p.Type(),
		Title:     p.Title(),
		Status:    p.Status(),
		Detail:    printable(p.Detail),
		Code:      string(p.Code),
		RequestID: RequestID(ctx),
	}
	for _, f := range p.Fields {
		out.Errors = append(out.Errors, oas.ProblemField{Field: printable(f.Field), Message: printable(f.Message)})
	}
	return out
}

// printable makes text that may quote the caller's input (a path, a parameter
// name) valid UTF-8 without NUL, so a refusal is itself valid JSON.
func printable(s string) string {
	if bounds.Text(s) == nil {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// setRetryAfter sets Retry-After on the response of ctx, for problems that
// reach ogen's encoder (which writes no headers of its own).
func setRetryAfter(ctx context.Context, p *problem.Error) {
	if hdr := responseHeader(ctx); hdr != nil && p.RetryAfter > 0 {
		hdr.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
}

// bodyRequired is the answer to an operation's request without a body.
var bodyRequired = problem.Invalid("body", "is required: send a JSON object")

// internal is the answer to anything unexpected: the cause is logged with the
// request id, never sent.
var internal = &problem.Error{Code: problem.Internal, Detail: "An internal error occurred. Reads may be retried; retry writes only after checking whether they took effect."}

// unavailable is the answer when the database cannot take more work now.
var unavailable = &problem.Error{Code: problem.ServiceUnavailable, Detail: "The service is briefly out of capacity; retry with exponential backoff and jitter.", RetryAfter: 1}

// commitUnknown is the answer to a write whose COMMIT had no answer.
var commitUnknown = &problem.Error{Code: problem.ServiceUnavailable, Detail: "The database connection was lost while the write committed, so it may or may not have taken effect; retry with the same Idempotency-Key, which answers with the write's result if it took effect and does it once if not.", RetryAfter: 1}

// classify maps any error to a problem.
func (h *Handler) classify(ctx context.Context, err error) *problem.Error {
	if p, ok := problem.As(err); ok {
		return p
	}
	var (
		tooBig *http.MaxBytesError
		sec    *ogenerrors.SecurityError
		param  *ogenerrors.DecodeParamError
		params *ogenerrors.DecodeParamsError
		req    *ogenerrors.DecodeRequestError
		cons   *ent.ConstraintError
		val    *ent.ValidationError
	)
	switch {
	case errors.As(err, &tooBig):
		return problem.New(problem.PayloadTooLarge, "The body is larger than %d bytes.", tooBig.Limit)
	case errors.As(err, &sec):
		return securityProblem(sec.Err)
	case errors.As(err, &params):
		name := ""
		if errors.As(params.Err, &param) {
			name = param.Name
		}
		return problem.Invalid(name, paramMessage(params.OperationContext.Name, name, params.Err))
	case errors.As(err, &req):
		return bodyProblem(ctx, req.OperationContext.Name, req.Err)
	case ent.IsNotFound(err):
		return problem.New(problem.NotFound, "No such record in this account.")
	case errors.As(err, &cons):
		return h.constraint(ctx, cons)
	case errors.As(err, &val):
		return problem.Invalid(val.Name, strings.TrimPrefix(val.Error(), "ent: validator failed for field \""+val.Name+"\": "))
	case errors.Is(err, dberror.ErrCommitUnknown):
		// The connection broke during COMMIT (a failover, the time ran out
		// and the guard cut it): the write may have taken effect or not.
		// Never a success, and not a 500: a retry with the same
		// Idempotency-Key replays the committed answer or does the write once.
		h.log.WarnContext(ctx, "commit outcome unknown", "request_id", RequestID(ctx), "error", err)
		return commitUnknown
	case ctx.Err() == context.DeadlineExceeded && errors.Is(err, context.DeadlineExceeded):
		// The time ran out before any query ran: no database connection
		// could be had (every one busy or unanswered) or opened.
		h.log.WarnContext(ctx, "no database connection within the request time", "request_id", RequestID(ctx), "error", err)
		return unavailable
	case errors.Is(err, auth.ErrUnanswered):
		// The first statement of the request, the key's lookup, had no
		// answer in the request's time: nothing was done, and no database
		// connection was usable (a pooler paused, a server gone quiet).
		h.log.WarnContext(ctx, "no answer from the database within the request time", "request_id", RequestID(ctx), "error", err)
		return unavailable
	case ctx.Err() == context.DeadlineExceeded, errors.Is(err, context.DeadlineExceeded):
		h.log.ErrorContext(ctx, "request exceeded its time", "request_id", RequestID(ctx), "error", err)
		return internal
	case errors.Is(err, context.Canceled):
		// Only shutdown cancels a request's work (withTimeout detaches it
		// from the client).
		h.log.InfoContext(ctx, "request cancelled", "request_id", RequestID(ctx), "error", err)
		return unavailable
	case dberror.Unavailable(err):
		h.log.WarnContext(ctx, "database unavailable", "request_id", RequestID(ctx), "error", err)
		return unavailable
	}
	h.log.ErrorContext(ctx, "internal error", "request_id", RequestID(ctx), "error", err)
	return internal
}

// securityProblem is the problem of a security handler error: our own refusal
// (scope, plan) or, for anything else (a missing header), an invalid key.
func securityProblem(err error) *problem.Error {
	if p, ok := problem.As(err); ok {
		return p
	}
	return auth.ErrInvalidKey
}

// paramMessage turns a parameter decode error into words.
func paramMessage(op, name string, err error) string {
	var v *validate.Error
	if errors.As(err, &v) && len(v.Fields) > 0 {
		return fieldMessage(op, validate.FieldError{Name: name, Error: v.Fields[0].Error})
	}
	if errors.Is(err, validate.ErrFieldRequired) || paramNotSet(err) {
		return "is required"
	}
	return fieldMessage(op, validate.FieldError{Name: name, Error: err})
}

// constraint maps a database constraint violation: a unique value taken is
// the answer the schema declares for its index (annotate.Conflict), or else a
// 409 DUPLICATE naming the field; a row still referenced is a 409 IN_USE.
func (h *Handler) constraint(ctx context.Context, c *ent.ConstraintError) *problem.Error {
	switch {
	case sqlgraph.IsUniqueConstraintError(c):
		constraint, cols, _ := dberror.Unique(c)
		if p, ok := ent.UniqueConflict(constraint); ok {
			return p
		}
		field := duplicateField(constraint, cols)
		if field == "" {
			return problem.Conflict(problem.Duplicate, "", "A record with the same unique value already exists.")
		}
		return problem.Conflict(problem.Duplicate, field, field+" is already taken by another record")
	case sqlgraph.IsForeignKeyConstraintError(c):
		return problem.New(problem.InUse, "The record is in use by other records and cannot be deleted.")
	}
	h.log.ErrorContext(ctx, "constraint violation", "request_id", RequestID(ctx), "error", c)
	return internal
}

// duplicateField names the API field of a unique violation, from what the
// database said of it (dberror.Unique): the last column of the index that is
// not the owning account; the columns the violation named when the index is
// none the schema knows.
func duplicateField(constraint string, cols []string) string {
	if known := ent.UniqueColumns(constraint); constraint != "" && known != nil {
		cols = known
	}
	for i := len(cols) - 1; i >= 0; i-- {
		if cols[i] != "account_id" && cols[i] != "parent_id" {
			return cols[i]
		}
	}
	return ""
}

// bodyMediaType is the one media type of every request body.
const bodyMediaType = "application/json"

// bodyProblem maps an error decoding or validating a request body. A body of
// another media type, or of none the server can read (a Content-Type that
// does not parse, or none at all), is 415; no body at all, whatever the
// Content-Type says, is the 400 of a missing body.
func bodyProblem(ctx context.Context, op string, err error) *problem.Error {
	var ct *validate.InvalidContentTypeError
	switch {
	case errors.Is(err, validate.ErrBodyRequired), ctx.Value(rawBodyKey{}) == nil:
		return bodyRequired
	case errors.As(err, &ct):
		return problem.New(problem.UnsupportedMediaType, "The body must be %s (charset utf-8, if any), not %.100q.", bodyMediaType, ct.ContentType)
	case !mediaTypeParses(ctx):
		return problem.New(problem.UnsupportedMediaType, "The body must be %s, sent with Content-Type: %s.", bodyMediaType, bodyMediaType)
	}
	if at, lineErr, ok := locateLine(ctx, op, decodePath(err)); ok {
		return decodeProblem(op, at, lineErr)
	}
	return decodeProblem(op, "", err)
}

// mediaTypeParses reports whether the Content-Type of the request of ctx (one
// with a body) is a media type at all: ogen's request decoders parse it
// (mime.ParseMediaType) before anything else and fail with that parser's
// error when it is not, so the same parser tells that failure apart.
func mediaTypeParses(ctx context.Context) bool {
	raw, _ := ctx.Value(rawBodyKey{}).(*rawBody)
	if raw == nil {
		return true
	}
	_, _, err := mime.ParseMediaType(raw.contentType)
	return err == nil
}

// decodeProblem maps a decoding or validation failure of the body, or of
// the part of it at path at (a line).
func decodeProblem(op, at string, err error) *problem.Error {
	var v *validate.Error
	if errors.As(err, &v) {
		return problem.InvalidFields(fieldErrors(op, join(at, decodePath(err)), v)...)
	}
	path, leaf := join(at, decodePath(err)), innermost(err)
	if name, ok := unexpectedField(leaf); ok {
		field := join(path, name)
		if slices.Contains(restapi.Immutable[op], name) && path == "" {
			return problem.Invalid(field, "cannot be changed after creation")
		}
		return problem.Invalid(field, "is not a field of this body")
	}
	if path == "" {
		return problem.Invalid("body", "is not a valid JSON object")
	}
	return problem.Invalid(path, leafMessage(leaf))
}

// locateLine names the line of a document body that failed to decode
// ("lines.quantity" → "lines[3].quantity"): ogen's decoder does not say which
// element of an array failed, so the body is read again, line by line, and
// the first line that fails gives its path ("lines[3]") and its error.
func locateLine(ctx context.Context, op, path string) (string, error, bool) {
	ld, ok := restapi.Lines[op]
	raw, _ := ctx.Value(rawBodyKey{}).(*rawBody)
	if !ok || raw == nil || (path != ld.Field && !strings.HasPrefix(path, ld.Field+".")) {
		return "", nil, false
	}
	i, found := 0, -1
	var lineErr error
	_ = jx.DecodeBytes(raw.Bytes()).ObjBytes(func(d *jx.Decoder, key []byte) error {
		if string(key) != ld.Field || found >= 0 {
			return d.Skip()
		}
		return d.Arr(func(d *jx.Decoder) error {
			elem, err := d.Raw()
			if err != nil || found >= 0 {
				return err
			}
			if err := ld.Decode(jx.DecodeBytes(elem)); err != nil {
				found, lineErr = i, err
			}
			i++
			return nil
		})
	})
	if found < 0 {
		return "", nil, false
	}
	return fmt.Sprintf("%s[%d]", ld.Field, found), lineErr, true
}

// fieldErrors words the failures of a validation, naming nested fields by
// their path ("address.city", "lines[3].quantity").
func fieldErrors(op, prefix string, v *validate.Error) []problem.FieldError {
	var out []problem.FieldError
	for _, f := range v.Fields {
		name := join(prefix, f.Name)
		var inner *validate.Error
		if errors.As(f.Error, &inner) && len(inner.Fields) > 0 {
			out = append(out, fieldErrors(op, name, inner)...)
			continue
		}
		out = append(out, problem.FieldError{Field: name, Message: fieldMessage(op, f)})
	}
	return out
}

// decodePath rebuilds the path of the failing field from the wraps of ogen's
// generated decoders, one a field ("address" → "city": "address.city"); an
// element of an array is not named (locateLine names a line).
func decodePath(err error) string {
	var path string
	for e := err; e != nil; e = unwrap(e) {
		if name, ok := decodedField(ownMessage(e)); ok {
			path = join(path, name)
		}
	}
	return path
}

// ownMessage is what err says of itself, without the message of the error it
// wraps.
func ownMessage(err error) string {
	msg := err.Error()
	if next := unwrap(err); next != nil {
		msg = strings.TrimSuffix(msg, ": "+next.Error())
	}
	return msg
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	if name == "" {
		return prefix
	}
	if strings.HasPrefix(name, "[") {
		return prefix + name
	}
	return prefix + "." + name
}

func innermost(err error) error {
	for {
		next := unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// unwrap is errors.Unwrap that also follows the first error of a join (ogen
// joins a decode error with the result of closing the body).
func unwrap(err error) error {
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		return e.Unwrap()
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			if x != nil {
				return x
			}
		}
	}
	return nil
}

// fieldMessage words a validation failure of one field.
func fieldMessage(op string, f validate.FieldError) string {
	if _, ok := refusedEnum(f.Error); ok {
		if vals := restapi.Enums[op][f.Name]; len(vals) > 0 {
			return "must be one of " + strings.Join(vals, ", ")
		}
	}
	return leafMessage(f.Error)
}

// trimNumber drops the trailing zeros of a decimal number's fraction.
func trimNumber(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// leafMessage words the innermost cause of a validation or decode failure.
func leafMessage(err error) string {
	var (
		minLen *validate.MinLengthError
		maxLen *validate.MaxLengthError
		num    *strconv.NumError
		bound  *bounds.Error
		custom *validate.ValidationError
		parsed *time.ParseError
	)
	switch {
	case errors.Is(err, validate.ErrFieldRequired):
		return "is required"
	case errors.As(err, &parsed) && parsed.Layout == time.DateOnly:
		return "must be a date (YYYY-MM-DD)"
	case errors.As(err, &parsed):
		return "must be a date-time (RFC 3339, such as 2026-01-15T09:30:00Z)"
	case errors.As(err, &bound):
		return bound.Message
	case errors.As(err, &custom): // a validator of package bounds, by its message
		return custom.Message
	case errors.Is(err, bounds.ErrNotNumber):
		return bounds.ErrNotNumber.Error()
	case errors.As(err, &minLen):
		if minLen.MinLength == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters long", minLen.MinLength)
	case errors.As(err, &maxLen):
		return fmt.Sprintf("must be at most %d characters long", maxLen.MaxLength)
	case errors.As(err, &num) && num.Func == "ParseBool":
		return "must be true or false"
	case errors.As(err, &num):
		return "must be a number of the documented type"
	}
	leaf := innermost(err)
	if m := outOfBounds(leaf); m != nil {
		value, bound := trimNumber(m[1]), trimNumber(m[3])
		// ogen words an exclusive bound as an inclusive one; the value
		// equal to the bound tells them apart.
		switch {
		case m[2] == "less" && value == bound:
			return "must be greater than " + bound
		case m[2] == "less":
			return "must be at least " + bound
		case value == bound:
			return "must be less than " + bound
		}
		return "must be at most " + bound
	}
	token, isToken := badToken(leaf)
	var escape url.EscapeError
	if isToken && token == 'n' {
		return "must not be null"
	}
	if value, ok := refusedEnum(leaf); ok {
		return "is not an accepted value (" + value + ")"
	}
	switch {
	case isToken, leaf == io.ErrUnexpectedEOF, leaf == io.EOF, errors.As(leaf, &escape), isNilValue(leaf):
		return "has the wrong type or is malformed"
	}
	return "is invalid"
}

// What ogen and go-faster/jx say only in words, or keep in an unexported
// type. Each reading below holds for the versions go.mod requires (ogen
// v1.24.0, jx v1.2.0); TestDependencyWordings produces each error from the
// dependency itself and fails when its words or its type change.

// decodedField is the field a wrap of ogen's generated JSON decoders names
// (`decode field "city"`).
func decodedField(msg string) (string, bool) {
	name, ok := strings.CutPrefix(msg, `decode field "`)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(name, `"`)
}

// unexpectedField is the field that ogen's generated JSON decoders refuse as
// not of the schema (`unexpected field "colour"`), as they quote it.
func unexpectedField(err error) (string, bool) {
	name, ok := strings.CutPrefix(err.Error(), `unexpected field "`)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(name, `"`)
}

// valueBound reads the bound that ogen's validate.Int refuses a number by
// (`value 0 less than 1`, `value 201 greater than 200`; validate.String's
// numeric bound says "less than minimum").
var valueBound = regexp.MustCompile(`value (\S+) (less|greater) than (?:minimum |maximum )?(\S+)`)

// outOfBounds is valueBound's match in err's message: the value, "less" or
// "greater", and the bound; nil when err is not a bound's refusal.
func outOfBounds(err error) []string { return valueBound.FindStringSubmatch(err.Error()) }

// refusedEnum is the value that ogen's generated enums refuse, decoding or
// validating (`invalid value: "NOPE"`, `invalid value: NOPE`), as they
// quote it.
func refusedEnum(err error) (string, bool) {
	return strings.CutPrefix(innermost(err).Error(), "invalid value: ")
}

// nilValue is what ogen's generated validators say of a required array that
// is nil.
const nilValue = "nil is invalid value"

func isNilValue(err error) bool { return err.Error() == nilValue }

// paramNotSet reports ogen's uri decoders' refusal of a parameter that is
// absent (`query parameter "limit" not set`, `header parameter "X" not set`).
func paramNotSet(err error) bool { return strings.HasSuffix(err.Error(), "not set") }

// jxBadToken is the type of go-faster/jx's error for a byte that cannot start
// or continue the value being read, which jx keeps unexported: taken from jx
// itself, made to read null as a string.
var jxBadToken = func() reflect.Type {
	_, err := jx.DecodeStr("null").Str()
	return reflect.TypeOf(innermost(err))
}()

// badToken reports whether err is jx's refusal of a byte, and the byte (its
// Token field; 'n' is the start of a null).
func badToken(err error) (byte, bool) {
	if reflect.TypeOf(err) != jxBadToken || reflect.TypeOf(err).Kind() != reflect.Pointer {
		return 0, false
	}
	token := reflect.ValueOf(err).Elem().FieldByName("Token")
	if token.Kind() != reflect.Uint8 {
		return 0, true
	}
	return byte(token.Uint()), true
}
