// Package problem holds the API's typed errors: each carries a code from
// the table of docs/api-behaviour.md, "Errors", a status derived from that code in one place, a detail
// for humans and the fields at fault. Anything that can fail for a reason the
// caller should see returns one; every other error is an internal error.
package problem

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Code is a machine-readable error code.
type Code string

// The error codes of the API.
const (
	Validation           Code = "VALIDATION_ERROR"
	InvalidAPIKey        Code = "INVALID_API_KEY"
	InsufficientScope    Code = "INSUFFICIENT_SCOPE"
	NotEntitled          Code = "NOT_ENTITLED"
	ReadOnlyRecord       Code = "READ_ONLY_RECORD"
	NotFound             Code = "NOT_FOUND"
	MethodNotAllowed     Code = "METHOD_NOT_ALLOWED"
	PayloadTooLarge      Code = "PAYLOAD_TOO_LARGE"
	UnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE"
	Duplicate            Code = "DUPLICATE"
	InUse                Code = "IN_USE"
	InvalidState         Code = "INVALID_STATE"
	IdempotencyKeyReused Code = "IDEMPOTENCY_KEY_REUSED"
	IdempotencyKeyInUse  Code = "IDEMPOTENCY_KEY_IN_USE"
	LotExpiryMismatch    Code = "LOT_EXPIRY_MISMATCH"
	DefaultAddressExists Code = "DEFAULT_ADDRESS_EXISTS"
	SupplierBlocked      Code = "SUPPLIER_BLOCKED"
	InsufficientStock    Code = "INSUFFICIENT_STOCK"
	LotNotSellable       Code = "LOT_NOT_SELLABLE"
	RateLimited          Code = "RATE_LIMITED"
	Internal             Code = "INTERNAL_ERROR"
	ServiceUnavailable   Code = "SERVICE_UNAVAILABLE"
)

// kinds maps every code to its HTTP status and title: the one table of statuses.
var kinds = map[Code]struct {
	status int
	title  string
}{
	Validation:           {http.StatusBadRequest, "Invalid request"},
	InvalidAPIKey:        {http.StatusUnauthorized, "Invalid API key"},
	InsufficientScope:    {http.StatusForbidden, "Insufficient scope"},
	NotEntitled:          {http.StatusForbidden, "Not entitled"},
	ReadOnlyRecord:       {http.StatusForbidden, "Read-only record"},
	NotFound:             {http.StatusNotFound, "Not found"},
	MethodNotAllowed:     {http.StatusMethodNotAllowed, "Method not allowed"},
	PayloadTooLarge:      {http.StatusRequestEntityTooLarge, "Payload too large"},
	UnsupportedMediaType: {http.StatusUnsupportedMediaType, "Unsupported media type"},
	Duplicate:            {http.StatusConflict, "Duplicate value"},
	InUse:                {http.StatusConflict, "Record in use"},
	InvalidState:         {http.StatusConflict, "Invalid state"},
	IdempotencyKeyReused: {http.StatusConflict, "Idempotency key reused"},
	IdempotencyKeyInUse:  {http.StatusConflict, "Idempotency key in use"},
	LotExpiryMismatch:    {http.StatusConflict, "Lot expiry mismatch"},
	DefaultAddressExists: {http.StatusConflict, "Default address exists"},
	SupplierBlocked:      {http.StatusConflict, "Supplier blocked"},
	InsufficientStock:    {http.StatusConflict, "Insufficient stock"},
	LotNotSellable:       {http.StatusConflict, "Lot not sellable"},
	RateLimited:          {http.StatusTooManyRequests, "Too many requests"},
	Internal:             {http.StatusInternalServerError, "Internal error"},
	ServiceUnavailable:   {http.StatusServiceUnavailable, "Service unavailable"},
}

// Codes are every code, in alphabetical order (the console's filters offer them).
func Codes() []Code {
	out := make([]Code, 0, len(kinds))
	for c := range kinds {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// TypeBase prefixes the problem type URI of every code.
const TypeBase = "https://larder.dev/errors/"

// FieldError names one field at fault.
type FieldError struct {
	Field   string
	Message string
}

// Error is an API error.
type Error struct {
	Code   Code
	Detail string
	Fields []FieldError
	// RetryAfter, in seconds, is sent as Retry-After when positive.
	RetryAfter int
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Detail }

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if k, ok := kinds[e.Code]; ok {
		return k.status
	}
	return http.StatusInternalServerError
}

// Title is the short summary of the error's code.
func (e *Error) Title() string {
	if k, ok := kinds[e.Code]; ok {
		return k.title
	}
	return kinds[Internal].title
}

// Type is the problem type URI of the error's code.
func (e *Error) Type() string { return TypeBase + strings.ToLower(string(e.Code)) }

// New returns an error with a code and a formatted detail.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 naming one field: the detail reads "<field> <message>".
func Invalid(field, message string) *Error {
	return &Error{Code: Validation, Detail: field + " " + message, Fields: []FieldError{{field, message}}}
}

// Invalidf is Invalid with a formatted message.
func Invalidf(field, format string, args ...any) *Error {
	return Invalid(field, fmt.Sprintf(format, args...))
}

// InvalidFields is a 400 naming several fields.
func InvalidFields(fields ...FieldError) *Error {
	if len(fields) == 1 {
		return Invalid(fields[0].Field, fields[0].Message)
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Field + " " + f.Message
	}
	return &Error{Code: Validation, Detail: strings.Join(parts, "; "), Fields: fields}
}

// Conflict is a 409 with a code and optionally the field whose value conflicts.
func Conflict(code Code, field, detail string) *Error {
	e := &Error{Code: code, Detail: detail}
	if field != "" {
		e.Fields = []FieldError{{field, detail}}
	}
	return e
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
