package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// cacheEnv names the directory, one per run, where packagesDriver keeps the
// answers it has computed; it is set only for the commands that query
// through it.
const cacheEnv = "LARDER_GENERATE_PACKAGES"

// packagesDriver answers one query of go/packages as a GOPACKAGESDRIVER: the
// request on standard input, the patterns as arguments, the answer on
// standard output. The first query with given patterns, mode, flags and
// environment is answered by the go command (go/packages' own driver); the
// same query again is answered from dir.
func packagesDriver(dir string, patterns []string) error {
	var req packages.DriverRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return fmt.Errorf("packages driver: the request: %w", err)
	}
	if len(req.Overlay) > 0 {
		// Never asked with an overlay; go/packages' own driver answers it.
		return json.NewEncoder(os.Stdout).Encode(packages.DriverResponse{NotHandled: true})
	}
	key, err := json.Marshal(struct {
		Mode       packages.LoadMode
		Env, Flags []string
		Tests      bool
		Patterns   []string
	}{req.Mode, req.Env, req.BuildFlags, req.Tests, slices.Sorted(slices.Values(patterns))})
	if err != nil {
		return err
	}
	sum := sha256.Sum256(key)
	file := filepath.Join(dir, hex.EncodeToString(sum[:])+".json")
	if answer, err := os.ReadFile(file); err == nil {
		_, err = os.Stdout.Write(answer)
		return err
	}
	answer, err := query(req, patterns)
	if err != nil {
		return err
	}
	// Written whole or not at all: two commands may ask at once.
	tmp, err := os.CreateTemp(dir, "answer-")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(answer); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return err
	}
	_, err = os.Stdout.Write(answer)
	return err
}

// query asks the go command, through go/packages' own driver, for the
// packages the request needs, and returns them as a driver's answer: every
// package of the graph, with the facts a driver gives (files, imports,
// export data); go/packages then loads types and syntax itself.
func query(req packages.DriverRequest, patterns []string) ([]byte, error) {
	env := append(slices.Clone(req.Env), "GOPACKAGESDRIVER=off")
	mode := req.Mode&^(packages.NeedTypes|packages.NeedSyntax|packages.NeedTypesInfo|packages.NeedTypesSizes) |
		packages.NeedName | packages.NeedImports | packages.NeedDeps
	if req.Mode&(packages.NeedTypes|packages.NeedTypesInfo|packages.NeedSyntax) != 0 {
		mode |= packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedExportFile
	}
	roots, err := packages.Load(&packages.Config{Mode: mode, Env: env, BuildFlags: req.BuildFlags, Tests: req.Tests}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("packages driver: %w", err)
	}
	resp := packages.DriverResponse{Compiler: "gc"}
	cmd := exec.Command("go", "env", "GOARCH", "GOVERSION")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("packages driver: go env: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return nil, fmt.Errorf("packages driver: go env: unexpected %q", out)
	}
	resp.Arch = lines[0]
	// GOVERSION is go1.N[.P][ extra]: the driver gives N.
	if v, ok := strings.CutPrefix(lines[1], "go1."); ok {
		v, _, _ = strings.Cut(v, ".")
		resp.GoVersion, _ = strconv.Atoi(v)
	}
	for _, p := range roots {
		resp.Roots = append(resp.Roots, p.ID)
	}
	packages.Visit(roots, nil, func(p *packages.Package) { resp.Packages = append(resp.Packages, p) })
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(resp); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
