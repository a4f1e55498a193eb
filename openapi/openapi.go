// Package openapi holds the API description: openapi.json (published, served
// at /v1/openapi.json), server.json (ogen's input) and the ogen server in oas.
// All three are generated; see ../generate.go.
package openapi

import _ "embed"

// Document is the published OpenAPI 3.1 description.
//
//go:embed openapi.json
var Document []byte
