package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// overlayEnv names the file ent/entc.go passes to the go command as
// -overlay when it loads the schema.
const overlayEnv = "LARDER_ENTC_OVERLAY"

// entcStep runs entc (ent/entc.go). To load the schema, entc compiles and
// runs a program importing ent/schema, which imports hooks and policy, which
// import the generated package ent: after a schema change, that is the new
// package ent, which nothing has compiled yet (about a minute on two cores).
// The schema's loader needs only the generated types and field names that
// hooks and policy compile against, which a schema change rarely alters. So
// entcStep keeps a copy of the generated Go files as they were the last time
// the loader compiled them (the snapshot, in the user cache directory, per
// checkout), and loads the schema with them put in place of the current ones
// (the go command's -overlay); the go command finds that compilation in its
// build cache. Should the schema, hooks or policy no longer compile against
// the snapshot (they use a field or a type the schema has just added), entc
// runs again against the current files, and the snapshot is then taken of
// those.
//
// What the loader reads from the generated packages at load time are field
// names (hooks' lists of the fields they copy, named by ent's Field
// constants), and a constant's value is its field's name: the same in every
// version of the generated code that compiles with the same reference. So
// the load gives what it would give against the current files; should it
// ever not, CI catches it: a clone at a path this machine has not generated
// in has no snapshot, loads against the current files and fails when
// anything generated differs from what was committed. LARDER_GENERATE_ALL=1
// skips the snapshot too.
type entcStep struct{ step }

func (s entcStep) do() error {
	snap, err := snapshotDir()
	if err != nil {
		return err
	}
	if _, err := os.Stat(snap); err == nil && os.Getenv(forceEnv) != "1" {
		if ok, err := s.overSnapshot(snap); err != nil || ok {
			return err
		}
		log.Printf("%s: the schema needs package ent as it is now; compiling it for the schema's loader", s.name)
	}
	// The files the loader compiles now, kept aside until the load succeeds.
	staged := snap + ".new"
	if err := os.RemoveAll(staged); err != nil {
		return err
	}
	if err := copyGenerated(s.dir, staged); err != nil {
		return err
	}
	if err := s.step.do(); err != nil {
		os.RemoveAll(staged)
		return err
	}
	if err := os.RemoveAll(snap); err != nil {
		return err
	}
	return os.Rename(staged, snap)
}

// overSnapshot runs entc with the snapshot put over the generated files,
// reporting false (and hiding entc's output) when it failed.
func (s entcStep) overSnapshot(snap string) (bool, error) {
	overlay, err := overlayOver(s.dir, snap)
	if err != nil {
		return false, err
	}
	b, err := json.Marshal(overlay)
	if err != nil {
		return false, err
	}
	f, err := os.CreateTemp("", "larder-entc-overlay-*.json")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	start := time.Now()
	var out bytes.Buffer
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), overlayEnv+"="+f.Name())
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return false, nil
	}
	os.Stdout.Write(out.Bytes())
	if d := time.Since(start); d >= slow {
		log.Printf("%s: %.1f s (the schema loaded against package ent as last compiled)", s.name, d.Seconds())
	}
	return true, nil
}

// overlay is the go command's -overlay file: each path maps to the file
// whose content stands in for it, or to "" for a file that is not there.
type overlay struct {
	Replace map[string]string
}

// overlayOver puts the snapshot's files over the generated Go files under
// dir: a file of both reads as the snapshot's, a file only the snapshot has
// is added, and a generated file the snapshot lacks is taken away.
func overlayOver(dir, snap string) (overlay, error) {
	o := overlay{Replace: map[string]string{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return o, err
	}
	err = walkGenerated(dir, func(rel string) error {
		o.Replace[filepath.Join(abs, rel)] = ""
		return nil
	})
	if err != nil {
		return o, err
	}
	err = walkGenerated(snap, func(rel string) error {
		o.Replace[filepath.Join(abs, rel)] = filepath.Join(snap, rel)
		return nil
	})
	return o, err
}

// copyGenerated copies the generated Go files under dir to dst.
func copyGenerated(dir, dst string) error {
	return walkGenerated(dir, func(rel string) error {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}

// walkGenerated calls fn with the path, relative to dir, of every Go file
// under dir that entc writes: not the schema, entc.go itself, or tests.
func walkGenerated(dir string, fn func(rel string) error) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "schema" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == "entc.go" {
			return nil
		}
		return fn(rel)
	})
}

// snapshotDir is where the snapshot of this checkout's generated files is
// kept, beside the steps' record.
func snapshotDir() (string, error) {
	file, err := recordFile()
	if err != nil {
		return "", fmt.Errorf("entc: %w", err)
	}
	return strings.TrimSuffix(file, ".json") + "-ent", nil
}
