// Package larder is the module root. Everything generated is regenerated, in
// order, by `go generate ./...` from here:
//
//  1. entc (ent/entc.go): package ent from ent/schema and the codegen templates,
//     package restapi (the HTTP glue) from the same graph, and, through entoas
//     and codegen.BuildSpec, openapi/openapi.json (published) and
//     openapi/server.json (ogen's input);
//  2. ogen: the typed server in openapi/oas from openapi/server.json, its
//     response encoders then taken from a pool by openapi/pooled;
//  3. ogen again: the typed Go client in client from the same input, its enum
//     validators then opened to values added later by client/openenums;
//  4. access/gen: docs/ACCESS.md (who can read or change what) and
//     access/sites_gen.go (the system viewer's uses, found in the source).
package larder

//go:generate sh -c "cd ent && go run -mod=mod entc.go"
//go:generate go tool ogen --config openapi/ogen.yml --target openapi/oas --package oas --clean openapi/server.json
//go:generate go run ./openapi/pooled openapi/oas/oas_response_encoders_gen.go
//go:generate go tool ogen --config openapi/client.yml --target client --package client --clean openapi/server.json
//go:generate go run ./client/openenums client/oas_validators_gen.go
//go:generate go run ./access/gen
