// Command generate regenerates everything generated, in order; `go generate
// ./...` runs it from the module root (see ../../../generate.go for the steps).
// It prints how long a step took when it took a while, so a slow step is
// seen rather than guessed.
//
// It also answers ogen's package queries (packagesDriver): ogen loads the
// package of an external type (x-ogen-type) once per use, a `go list
// -export` each time; the answer is the same for every use in one run, so
// this command computes it once and hands the same answer to every query.
package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"larder.dev/larder/internal/generators/flows"
)

// slow is how long a step may take before its time is printed.
const slow = time.Second

func main() {
	log.SetFlags(0)
	log.SetPrefix("generate: ")
	if dir := os.Getenv(cacheEnv); dir != "" {
		if err := packagesDriver(dir, os.Args[1:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := toModuleRoot(); err != nil {
		log.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cache, err := os.MkdirTemp("", "larder-generate-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	// ogen's runs query the packages through this command (packagesDriver).
	ogenEnv := []string{"GOPACKAGESDRIVER=" + self, cacheEnv + "=" + cache}

	rec := &sharedRecord{r: loadRecord()}
	start := time.Now()
	err = run(
		guarded{name: "entc", rec: rec, task: entcStep{step{name: "entc", dir: "ent", args: []string{"go", "run", "-mod=mod", "entc.go"}}},
			// The schema, the code it runs and the templates, and the
			// modules' flows, which the handlers it writes call; not the
			// generated packages, which the schema compiles against but
			// whose content does not make what entc writes.
			in: files{
				paths:    []string{"go.mod", "go.sum", "ent/entc.go", "ent/schema", "openapi/releases"},
				packages: []string{"./ent/schema", "./internal/generators/codegen"},
				except:   []string{"larder.dev/larder/ent"},
				digest:   func() (string, error) { return flows.Digest(".") },
			},
			out: files{
				paths:      []string{"ent", "internal/restapi", "openapi/openapi.json", "openapi/server.json", "internal/generators/access/data/schema.json"},
				skipPrefix: []string{"ent/schema/", "ent/entc.go", "ent/generate.go"},
				skipSuffix: []string{"_test.go"},
			},
		},
		// The server and the client are generated from the same input
		// into different packages, so they run side by side.
		parallel(
			guarded{name: "server", rec: rec,
				in: files{
					paths:    []string{"go.mod", "go.sum", "openapi/server.json", "openapi/ogen.yml"},
					packages: []string{"./internal/platform/fastpath/pooled"}, patterns: externalTypes,
				},
				out: files{paths: []string{"openapi/oas"}},
				task: sequence(
					step{name: "ogen (server)", env: ogenEnv, args: []string{"go", "tool", "ogen", "--config", "openapi/ogen.yml", "--target", "openapi/oas", "--package", "oas", "--clean", "openapi/server.json"}},
					step{name: "fastpath/pooled", args: []string{"go", "run", "./internal/platform/fastpath/pooled", "openapi/oas/oas_response_encoders_gen.go"}},
				),
			},
			guarded{name: "client", rec: rec,
				in: files{
					paths:    []string{"go.mod", "go.sum", "openapi/server.json", "openapi/client.yml"},
					packages: []string{"./client/openenums"}, patterns: externalTypes,
				},
				out: files{paths: []string{"client"}},
				task: sequence(
					step{name: "ogen (client)", env: ogenEnv, args: []string{"go", "tool", "ogen", "--config", "openapi/client.yml", "--target", "client", "--package", "client", "--clean", "openapi/server.json"}},
					step{name: "client/openenums", args: []string{"go", "run", "./client/openenums", "client/oas_validators_gen.go"}},
				),
			},
		),
		// The access report's server part: it compiles the server, but
		// reads none of what the schema makes, so its inputs are the
		// server's source but for the generated packages (and sites_gen.go,
		// which internal/generators/access/gen writes); a schema change does not run it.
		guarded{name: "internal/generators/access/serverpart", rec: rec, task: step{name: "internal/generators/access/serverpart", args: []string{"go", "run", "./internal/generators/access/serverpart"}},
			in: files{
				paths:      []string{"go.mod", "go.sum"},
				packages:   []string{"./internal/generators/access/serverpart"},
				except:     generatedPackages,
				skipPrefix: []string{"internal/generators/access/sites_gen.go"},
			},
			out: files{paths: []string{"internal/generators/access/data/server.json"}},
		},
		// docs/ACCESS.md from the two parts, and sites_gen.go from the
		// source it searches for the system viewer's uses; sites_gen.go,
		// which it writes, is not an input: the report takes the uses as
		// found. It compiles package report only.
		guarded{name: "internal/generators/access/gen", rec: rec, task: step{name: "internal/generators/access/gen", args: []string{"go", "run", "./internal/generators/access/gen"}},
			in: files{
				paths:      []string{"go.mod", "go.sum", "internal/generators/access/data/schema.json", "internal/generators/access/data/server.json"},
				packages:   []string{"./internal/generators/access/gen"},
				goTree:     true,
				skipPrefix: []string{"internal/generators/access/sites_gen.go"},
			},
			out: files{paths: []string{"docs/ACCESS.md", "internal/generators/access/sites_gen.go"}},
		},
	)
	if serr := rec.r.save(); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		os.RemoveAll(cache)
		log.Fatal(err)
	}
	if d := time.Since(start); d >= slow {
		log.Printf("all steps: %.1f s", d.Seconds())
	}
}

// A task is a step or steps to run; run runs them in order.
type task interface{ do() error }

func run(tasks ...task) error { return sequence(tasks...).do() }

// step is one command, run from the module root or dir under it.
type step struct {
	name, dir string
	env       []string
	args      []string
}

func (s step) do() error {
	start := time.Now()
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s (%s): %w", s.name, strings.Join(s.args, " "), err)
	}
	if d := time.Since(start); d >= slow {
		log.Printf("%s: %.1f s", s.name, d.Seconds())
	}
	return nil
}

type sequenceTask []task

func sequence(tasks ...task) task { return sequenceTask(tasks) }

func (ts sequenceTask) do() error {
	for _, t := range ts {
		if err := t.do(); err != nil {
			return err
		}
	}
	return nil
}

type parallelTask []task

func parallel(tasks ...task) task { return parallelTask(tasks) }

func (ts parallelTask) do() error {
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		wg.Go(func() { errs[i] = t.do() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// generatedPackages are the packages the schema makes (through entc and
// ogen), with ent/schema itself: package ent and everything under it,
// restapi, and openapi, whose descriptions are embedded and whose oas is
// ogen's.
var generatedPackages = []string{"larder.dev/larder/ent", "larder.dev/larder/internal/restapi", "larder.dev/larder/openapi", "larder.dev/larder/client"}

// externalTypes are the packages of the external types (x-ogen-type) that
// ogen reads.
func externalTypes() ([]string, error) {
	b, err := os.ReadFile("openapi/server.json")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, m := range externalType.FindAllSubmatch(b, -1) {
		if p := string(m[1]); !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

var externalType = regexp.MustCompile(`"x-ogen-type":\s*"\*?([^"]+)\.[^."]+"`)

// toModuleRoot makes the module root the working directory: go generate runs
// the directive in ent/, and every path here is the module root's.
func toModuleRoot() error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return os.Chdir(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}
