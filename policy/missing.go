package policy

import (
	"errors"
	"fmt"
)

// MissingError is a record that does not exist for the one asking: absent,
// or another organization's, which the two never tell apart. The console
// answers it 404 and the CLI prints it; the message is the caller's
// ("webhook endpoint 7 does not exist").
type MissingError struct{ msg string }

// Error is the message.
func (e *MissingError) Error() string { return e.msg }

// Missingf makes a MissingError with a formatted message.
func Missingf(format string, args ...any) error {
	return &MissingError{msg: fmt.Sprintf(format, args...)}
}

// IsMissing reports whether err is, or wraps, a MissingError.
func IsMissing(err error) bool {
	var e *MissingError
	return errors.As(err, &e)
}
