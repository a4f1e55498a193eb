package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// forceEnv set to 1 runs every step, whatever was recorded.
const forceEnv = "LARDER_GENERATE_ALL"

// A record says, per step, what its inputs and its outputs were when it last
// ran on this machine, for this checkout. A step whose inputs are the same
// and whose outputs are still what it wrote is not run again: run twice,
// `go generate ./...` does the work once. The record is the machine's own
// (in the user cache directory), never committed: a fresh checkout, as CI
// has, runs every step.
type record map[string]stamp

type stamp struct{ Inputs, Outputs string }

func recordFile() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	root, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, "larder-generate", hex.EncodeToString(sum[:8])+".json"), nil
}

func loadRecord() record {
	r := record{}
	file, err := recordFile()
	if err != nil {
		return r
	}
	if b, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(b, &r) // unreadable: run everything
	}
	return r
}

func (r record) save() error {
	file, err := recordFile()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// files is what a step reads or writes, by path from the module root.
type files struct {
	// paths are files or whole directories.
	paths []string
	// packages are import patterns whose packages, with every package of
	// this module they import (their Go, cgo and embedded files), are read;
	// except are import paths left out of them (with their subpackages).
	packages, except []string
	// patterns, when set, names more such import patterns when the hash is
	// taken.
	patterns func() ([]string, error)
	// goTree adds every Go file of the module's tree but for those in
	// directories named testdata or starting with a dot.
	goTree bool
	// skip leaves out paths (under the directories) by prefix or suffix.
	skipPrefix, skipSuffix []string
	// digest, when set, is more of what the step reads that is no file
	// whole: the modules' flows (package flows), of which entc writes calls.
	digest func() (string, error)
}

// hash is a digest of the files' names and contents, the go command's
// version and, for inputs, the module's requirements.
func (f files) hash() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "go %s\n", runtime.Version())
	names := map[string]bool{}
	for _, p := range f.paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if !d.IsDir() {
				names[filepath.ToSlash(path)] = true
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if f.goTree {
		err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") {
				names[filepath.ToSlash(path)] = true
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	patterns := f.packages
	if f.patterns != nil {
		more, err := f.patterns()
		if err != nil {
			return "", err
		}
		patterns = append(slices.Clone(patterns), more...)
	}
	if len(patterns) > 0 {
		deps, err := moduleFiles(patterns, f.except)
		if err != nil {
			return "", err
		}
		for _, n := range deps {
			names[n] = true
		}
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !f.skipped(n) && !yield(n) {
				return
			}
		}
	})
	for _, n := range sorted {
		fh, err := os.Open(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "file %s\n", n)
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", err
		}
	}
	if f.digest != nil {
		d, err := f.digest()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "digest\n%s", d)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (f files) skipped(name string) bool {
	for _, p := range f.skipPrefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range f.skipSuffix {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// moduleFiles lists the Go, cgo and embedded files of the packages of this
// module that patterns name or import, but for those under except.
func moduleFiles(patterns, except []string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,CgoFiles,EmbedFiles,Module"}, patterns...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		return nil, err
	}
	var names []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir               string
			GoFiles, CgoFiles, EmbedFiles []string
			Module                        *struct{ Main bool }
		}
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Module == nil || !p.Module.Main || excluded(p.ImportPath, except) {
			continue
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.EmbedFiles} {
			for _, n := range list {
				rel, err := filepath.Rel(root, filepath.Join(p.Dir, n))
				if err != nil {
					return nil, err
				}
				names = append(names, filepath.ToSlash(rel))
			}
		}
	}
	return names, nil
}

func excluded(path string, except []string) bool {
	for _, e := range except {
		if path == e || strings.HasPrefix(path, e+"/") {
			return true
		}
	}
	return false
}

// guarded runs its task unless the record says that the inputs are those it
// last ran with and the outputs are still those it wrote.
type guarded struct {
	name    string
	in, out files
	task    task
	rec     *sharedRecord
}

type sharedRecord struct {
	mu sync.Mutex
	r  record
}

func (g guarded) do() error {
	in, err := g.in.hash()
	if err != nil {
		return fmt.Errorf("%s: its inputs: %w", g.name, err)
	}
	g.rec.mu.Lock()
	last, ok := g.rec.r[g.name]
	g.rec.mu.Unlock()
	if ok && last.Inputs == in && os.Getenv(forceEnv) != "1" {
		out, err := g.out.hash()
		if err != nil {
			return fmt.Errorf("%s: its outputs: %w", g.name, err)
		}
		if out == last.Outputs {
			log.Printf("%s: inputs and outputs as when it last ran, not run (%s=1 runs it)", g.name, forceEnv)
			return nil
		}
	}
	g.rec.mu.Lock()
	delete(g.rec.r, g.name)
	g.rec.mu.Unlock()
	if err := g.task.do(); err != nil {
		return err
	}
	out, err := g.out.hash()
	if err != nil {
		return fmt.Errorf("%s: its outputs: %w", g.name, err)
	}
	g.rec.mu.Lock()
	g.rec.r[g.name] = stamp{Inputs: in, Outputs: out}
	g.rec.mu.Unlock()
	return nil
}
