// Package missing marks the errors of records that do not exist for the one
// asking: absent, or another organization's (the two are never told apart).
// The console answers them 404 and the CLI prints them; the message is the
// caller's ("webhook endpoint 7 does not exist").
package missing

import (
	"errors"
	"fmt"
)

// Error is a record that does not exist for the caller.
type Error struct{ msg string }

// Error is the message.
func (e *Error) Error() string { return e.msg }

// Errorf makes an Error with a formatted message.
func Errorf(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}

// Is reports whether err is, or wraps, an Error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
