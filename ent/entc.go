//go:build ignore

// entc.go generates package ent and its subpackages from ./schema, together with
// the project templates of package codegen and, through the entoas extension,
// the OpenAPI descriptions in ../openapi, the access report's schema part
// in ../internal/generators/access/data and the tables of the integrators'
// guide that the description decides (../docs/integrators.md). Run it with
// `go generate ./...` from the module root (see ../generate.go).
package main

import (
	"io"
	"log"
	"os"
	"path/filepath"

	"entgo.io/contrib/entoas"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/codegen"
)

func main() {
	oas, err := entoas.NewExtension(
		entoas.SimpleModels(),
		entoas.DefaultPolicy(entoas.PolicyExclude),
		entoas.Mutations(codegen.BuildSpec(codegen.SpecOptions{
			Public:   "../openapi/openapi.json",
			Server:   "../openapi/server.json",
			Access:   "../internal/generators/access/data/schema.json",
			Guide:    filepath.Join("..", "docs", "integrators.md"),
			Releases: filepath.Join("..", "openapi", "releases"),
		})),
		entoas.WriteTo(io.Discard),
	)
	if err != nil {
		log.Fatalf("entoas: %v", err)
	}
	err = entc.Generate("./schema", &gen.Config{
		BuildFlags: buildFlags(),
		Features: []gen.Feature{
			gen.FeaturePrivacy,
			gen.FeatureEntQL,
			gen.FeatureIntercept,
			gen.FeatureVersionedMigration,
			gen.FeatureLock,
			gen.FeatureModifier,
			gen.FeatureUpsert,
			gen.FeatureExecQuery,
		},
	}, entc.Extensions(oas, codegen.Extension{}))
	if err != nil {
		log.Fatalf("entc: %v", err)
	}
}

// buildFlags are the go command's flags for loading the schema: the
// overlay that ../internal/generators/generate names in LARDER_ENTC_OVERLAY, which puts
// package ent as it was last compiled in place of the current files.
func buildFlags() []string {
	if p := os.Getenv("LARDER_ENTC_OVERLAY"); p != "" {
		return []string{"-overlay=" + p}
	}
	return nil
}
