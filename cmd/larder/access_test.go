package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"larder.dev/larder/internal/generators/access"
)

// docs/ACCESS.md: `larder access-report` prints docs/ACCESS.md as
// committed (so the binary and the document agree), and --json the same
// report as one object; the system viewer's uses compiled into the binary
// are those the source has now.
func TestAccessReportCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"access-report"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	doc, err := os.ReadFile("../../docs/ACCESS.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), doc) {
		t.Fatal("larder access-report differs from docs/ACCESS.md: run go generate ./...")
	}
	got := cli(t, "sqlite://"+t.TempDir()+"/unused.db", "access-report")
	for _, k := range []string{"operations", "scopes", "entities", "rules", "cost_fields", "bypasses", "keys_and_limits", "encrypted_at_rest"} {
		if v, ok := got[k].([]any); !ok || len(v) == 0 {
			t.Errorf("--json %s: %v", k, got[k])
		}
	}
	// The keyless endpoints outside the API are named for the reviewer.
	rules := fmt.Sprint(got["keys_and_limits"])
	for _, p := range []string{"/healthz", "/readyz", "/docs", "/metrics"} {
		if !strings.Contains(rules, p) {
			t.Errorf("keys_and_limits does not name %s", p)
		}
	}
	sites, err := access.FindSites("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != len(access.Sites) {
		t.Fatalf("the source has %d system-viewer uses, the binary lists %d: run go generate ./...", len(sites), len(access.Sites))
	}
	for i := range sites {
		if sites[i] != access.Sites[i] {
			t.Errorf("system viewer use %d: source %+v, binary %+v", i, sites[i], access.Sites[i])
		}
	}
}
