// Package problem holds the API's typed errors: each carries a code from
// the table of docs/api-behaviour.md, "Errors", a status derived from that code in one place, a detail
// for humans and the fields at fault. Anything that can fail for a reason the
// caller should see returns one; every other error is an internal error.
package problem

import (
	"errors"
	"fmt"
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

// kinds maps every code to its HTTP status and title: the one table of
// statuses. The statuses are numbers, not net/http's constants: package ent
// returns these errors and imports nothing of HTTP.
var kinds = map[Code]struct {
	status int
	title  string
}{
	Validation:           {400, "Invalid request"},
	InvalidAPIKey:        {401, "Invalid API key"},
	InsufficientScope:    {403, "Insufficient scope"},
	NotEntitled:          {403, "Not entitled"},
	ReadOnlyRecord:       {403, "Read-only record"},
	NotFound:             {404, "Not found"},
	MethodNotAllowed:     {405, "Method not allowed"},
	PayloadTooLarge:      {413, "Payload too large"},
	UnsupportedMediaType: {415, "Unsupported media type"},
	Duplicate:            {409, "Duplicate value"},
	InUse:                {409, "Record in use"},
	InvalidState:         {409, "Invalid state"},
	IdempotencyKeyReused: {409, "Idempotency key reused"},
	IdempotencyKeyInUse:  {409, "Idempotency key in use"},
	LotExpiryMismatch:    {409, "Lot expiry mismatch"},
	DefaultAddressExists: {409, "Default address exists"},
	SupplierBlocked:      {409, "Supplier blocked"},
	InsufficientStock:    {409, "Insufficient stock"},
	LotNotSellable:       {409, "Lot not sellable"},
	RateLimited:          {429, "Too many requests"},
	Internal:             {500, "Internal error"},
	ServiceUnavailable:   {503, "Service unavailable"},
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
	return 500
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
