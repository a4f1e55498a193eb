// Package ent is generated from ent/schema (by entc.go, beside this file) and
// never edited by hand. This file is the one that is not generated: everything
// generated in the module is regenerated, in order, by `go generate ./...` from
// the module root, whose one directive is here (ent's own place for it); it
// runs internal/generators/generate, which works from the module root and
// prints each step's time when the step takes over a second, and does not run
// a step whose inputs are those it last ran with on this machine and whose
// outputs are still those it wrote (LARDER_GENERATE_ALL=1 runs every step; a
// fresh checkout, as CI has, runs every step anyway):
//
//  1. entc (ent/entc.go): package ent from ent/schema and the codegen
//     templates, package restapi (the HTTP glue) from the same graph, and,
//     through entoas and codegen.BuildSpec, openapi/openapi.json (published)
//     and openapi/server.json (ogen's input), and the access report's schema
//     part, internal/generators/access/data/schema.json (the operations and their scopes, every
//     schema's annotations and its policy's rules, named by the annotation
//     its policy mixin gives: AccountMixin, SystemOnlyMixin), and the
//     tables of docs/integrators.md that the description decides. Its
//     inputs, to decide whether it runs: ent/schema and the code of this
//     module it imports, codegen, go.mod and go.sum, and the workflows the
//     modules declare (internal/generators/flows: their flow values, which
//     the handlers it writes call); not the generated packages the schema
//     compiles against;
//  2. ogen, twice and side by side from openapi/server.json: the typed server
//     in openapi/oas, its response encoders then taken from a pool by
//     internal/platform/fastpath/pooled; and the typed Go client in client, its enum validators
//     then opened to values added later by client/openenums. ogen's queries
//     for the packages of the external types (x-ogen-type) are answered by
//     internal/generate, once per run instead of once per use;
//  3. internal/generators/access/serverpart: internal/generators/access/data/server.json, the access report's part
//     that the server's own packages hold (scopes' implications, key and
//     limit rules, encrypted columns, console routes). It compiles the
//     server, but its inputs leave out the generated packages (ent,
//     restapi, openapi, client) and ent/schema: a schema change does not
//     run it;
//  4. internal/generators/access/gen: docs/ACCESS.md from the two parts, and
//     internal/generators/access/sites_gen.go (the system viewer's uses, found in the source).
//     It compiles package internal/generators/access/report only, nothing that imports ent.
//     That docs/ACCESS.md is what the compiled server reports
//     (access.Build, `larder access-report`) is cmd/larder's
//     TestAccessReportCommand.
//
// Times of a one-field schema change, measured 2026-11-28 on the 2-core
// development machine with a warm build cache (the step times the command
// prints, and `time go generate ./...` for the whole): after one run of `go
// generate ./...`, a field's comment changed in ent/schema/product.go took
// 19.5 s (entc 13.3 s, the two ogen runs side by side 4.7 s, the access
// report 0.5 s, internal/generators/access/serverpart not run); a nullable field added, 22.4 s
// (entc 15.1 s, ogen 5.6 s). Before the access report was split into its
// parts and the templates imported what their files name, the comment change
// took 90.6 s (entc 25.5 s, ogen 4.7 s, internal/generators/access/gen 58.9 s compiling the new
// package ent and the server).
//
// A second schema change in a row costs the same: entc's loader compiles
// ent/schema, which imports hooks and policy, which import the generated
// package ent that the change before rewrote, and compiling that package
// takes about a minute. So the step keeps a copy of the generated files as
// the loader last compiled them (in the user cache directory, per checkout)
// and loads the schema with that copy in their place (the go command's
// -overlay, LARDER_ENTC_OVERLAY in ent/entc.go), which the build cache holds
// compiled; only when hooks or policy use what the schema has since added
// does it load against the current files (and copy those). The loader reads
// from the generated packages only what hooks and policy compile against:
// types, and field names through ent's Field constants, whose values are
// their names in every version; so the output is the same (CI, from a clone
// at a new path, loads against the current files and checks that nothing
// changed). Measured 2026-11-28: three successive comment changes in
// ent/schema/tag.go took 24.3, 21.2 and 20.4 s (entc 17.0, 14.4 and
// 14.0 s), where the second had taken 94.9 s (entc 88.3 s) before; a
// change whose hook uses a field added by the change before took 189 s
// (entc 88 s, the access report's server part 97 s, since hooks changed),
// and the change after it 24.0 s.
package ent

//go:generate go run ../internal/generators/generate
