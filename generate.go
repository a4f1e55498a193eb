// Package larder is the module root. Everything generated is regenerated, in
// order, by `go generate ./...` from here, which runs internal/generate; it
// prints each step's time when the step takes over a second:
//
//  1. entc (ent/entc.go): package ent from ent/schema, the codegen templates,
//     and, through entoas and codegen.BuildSpec, openapi/openapi.json (published)
//     and openapi/server.json (ogen's input);
//  2. ogen, twice and side by side from openapi/server.json: the typed server
//     in openapi/oas, its response encoders then taken from a pool by
//     openapi/pooled; and the typed Go client in client, its enum validators
//     then opened to values added later by client/openenums. ogen's queries
//     for the packages of the external types (x-ogen-type) are answered by
//     internal/generate, once per run instead of once per use;
//  3. access/gen: docs/ACCESS.md (who can read or change what, from the
//     compiled server's policies and tables) and access/sites_gen.go (the
//     system viewer's uses, found in the source).
package larder

//go:generate go run ./internal/generate
