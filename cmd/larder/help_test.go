package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runOut runs larder and returns standard output and error.
func runOut(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

// docs/operators.md, "Commands": help goes to standard output and succeeds — the
// command list, a group's commands, and per command its description,
// synopsis, an example and only the flags it reads; --version prints the
// version; progress bars are drawn only on a terminal.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errb, err := runOut(args...)
		if err != nil || errb != "" || !strings.Contains(out, "usage: larder") {
			t.Fatalf("larder %v: %v, stderr %q, stdout %q", args, err, errb, out)
		}
		for _, name := range commandNames() {
			if !strings.Contains(out, "larder "+name) {
				t.Errorf("larder %v does not list %s", args, name)
			}
		}
	}
	out, _, err := runOut("key", "--help")
	if err != nil || !strings.Contains(out, "larder key create") || !strings.Contains(out, "larder key revoke") || strings.Contains(out, "larder product") {
		t.Fatalf("larder key --help: %v\n%s", err, out)
	}
	if _, errb, err := runOut("key"); err == nil || !strings.Contains(errb, "larder key create") {
		t.Fatalf("larder key alone: %v, stderr %q", err, errb)
	}
	for _, name := range commandNames() {
		args := append(strings.Fields(name), "--help")
		out, errb, err := runOut(args...)
		ex := examples[name]
		if err != nil || errb != "" || ex == "" || !strings.Contains(out, "example:\n  "+ex) || !strings.Contains(out, "usage: larder "+name) {
			t.Errorf("larder %s --help: %v, stderr %q:\n%s", name, err, errb, out)
		}
		if !strings.HasPrefix(ex, "larder "+name) {
			t.Errorf("the example of %s runs another command: %s", name, ex)
		}
	}
	out, _, _ = runOut("key", "create", "--help")
	if !strings.Contains(out, "-scopes") || strings.Contains(out, "-addr") || strings.Contains(out, "-webhook-poll-interval") {
		t.Fatalf("key create --help shows flags it does not read, or lacks its own:\n%s", out)
	}
	out, _, _ = runOut("serve", "--help")
	if !strings.Contains(out, "-addr") || !strings.Contains(out, "-demo") {
		t.Fatalf("serve --help lacks its flags:\n%s", out)
	}
	if out, _, err := runOut("--version"); err != nil || !strings.HasPrefix(out, "larder ") || !strings.Contains(out, "go1.") {
		t.Fatalf("--version: %v %q", err, out)
	}
	var log bytes.Buffer
	bar := newProgress(&log, "importing")
	bar.set(5, 10)
	bar.set(10, 10)
	bar.done()
	if log.Len() != 0 {
		t.Fatalf("a progress bar was drawn into a non-terminal: %q", log.String())
	}
}
