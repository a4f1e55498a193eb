// Package forms reads the forms the console posts: each form's function
// takes the submitted values and returns what they ask for, typed, with the
// errors to show beside its fields. It calls no database: a rule that needs
// the organization's records (a key's state, an endpoint being enabled) is
// the page's.
package forms

import (
	"net/url"
	"strings"
)

// Errors are a form's problems: a message per field name, "" for the form
// as a whole. A field keeps its first message.
type Errors map[string]string

// Add sets the message of field unless it has one already.
func (e *Errors) Add(field, msg string) {
	if *e == nil {
		*e = Errors{}
	}
	if _, ok := (*e)[field]; !ok {
		(*e)[field] = msg
	}
}

// OK reports whether there is no problem.
func (e Errors) OK() bool { return len(e) == 0 }

// Choice is one option of a list a form offers: the value sent and the
// words shown.
type Choice struct{ Value, Label string }

// offers reports whether cs has an option of value v.
func offers(cs []Choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

// get is field name's value, trimmed.
func get(v url.Values, name string) string { return strings.TrimSpace(v.Get(name)) }

// has reports whether field name has value x among its values (checkboxes).
func has(v url.Values, name, x string) bool {
	for _, y := range v[name] {
		if y == x {
			return true
		}
	}
	return false
}
