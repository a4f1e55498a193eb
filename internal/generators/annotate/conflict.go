package annotate

// ConflictName is the annotation name of IndexConflict.
const ConflictName = "LarderConflict"

// IndexConflict is the answer to a write that a unique index refuses, when
// that answer is more than the DUPLICATE naming the taken field: a 409 with
// its own code, naming Field, with Message as its detail and as the field's
// message. The generator lists it by the index's name in package ent
// (ent.UniqueConflict), which the HTTP layer asks on a unique violation; the
// index itself, and so its SQL, is the same with it or without.
type IndexConflict struct {
	// Code is the problem code of the answer ("DEFAULT_ADDRESS_EXISTS").
	Code string `json:"code"`
	// Field is the API field the answer names; empty: none.
	Field string `json:"field,omitempty"`
	// Message is the answer's detail, and the field's message.
	Message string `json:"message"`
}

// Name implements schema.Annotation.
func (IndexConflict) Name() string { return ConflictName }

// Conflict declares the answer to a violation of the unique index it
// annotates: a 409 with code, naming field, worded by message.
func Conflict(code, field, message string) IndexConflict {
	return IndexConflict{Code: code, Field: field, Message: message}
}
