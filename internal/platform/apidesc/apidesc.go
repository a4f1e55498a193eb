// Package apidesc reads the operations of an OpenAPI description: each one's
// id, method and path, with its own JSON for a reader that wants more of it
// (package deprecation its deprecations, package reqlog the write
// operations' methods).
package apidesc

import (
	"encoding/json"
	"strings"
)

// Operation is one operation of a description.
type Operation struct {
	// ID is its operationId.
	ID string
	// Method is its HTTP method, upper case.
	Method string
	// Path is its path as the description writes it (/tags/{tag_id}).
	Path string
	// JSON is the operation object.
	JSON json.RawMessage
}

// Operations reads every operation of the description doc, in no particular
// order; a path item's other members (its parameters, its summary) are not
// operations.
func Operations(doc []byte) ([]Operation, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	var out []Operation
	for path, item := range d.Paths {
		for method, raw := range item {
			var op struct {
				ID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) != nil || op.ID == "" {
				continue
			}
			out = append(out, Operation{ID: op.ID, Method: strings.ToUpper(method), Path: path, JSON: raw})
		}
	}
	return out, nil
}
