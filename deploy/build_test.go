package deploy

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// staticBuild is the Containerfile's build command, before its output.
const staticBuild = "CGO_ENABLED=0 go build -trimpath -ldflags='-s -w'"

// The Containerfile's command builds a static binary, which runs on
// distroless/static or scratch: an ELF without an interpreter or shared
// libraries, built without cgo.
func TestStaticBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the static build (minutes without a warm cache) is not run")
	}
	out := filepath.Join(t.TempDir(), "larder")
	// CGO_ENABLED=0 shares no compiled package with the test build, so this
	// compiles the whole module again, for minutes on two busy cores. Its
	// budget ends a minute before the test binary's (the README's -timeout),
	// so a build that is too slow fails here, named, with what it printed.
	budget := 25 * time.Minute
	if end, ok := t.Deadline(); ok && time.Until(end)-time.Minute < budget {
		budget = max(time.Until(end)-time.Minute, time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", staticBuild+" -o "+out+" ./cmd/larder")
	cmd.Dir = ".."
	// The shell's children (go and its compilers) end with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s: not done within its budget of %s (raise go test -timeout): %v\n%s", staticBuild, budget.Round(time.Second), err, b)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", staticBuild, err, b)
	}
	t.Logf("static build: %s", time.Since(start).Round(time.Second))
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (program header %v)", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %q", libs)
	}
	// -s -w: no symbol table, no DWARF (go version -m leaves -ldflags out
	// under -trimpath).
	for _, sec := range f.Sections {
		if sec.Name == ".symtab" || strings.HasPrefix(sec.Name, ".debug_") || strings.HasPrefix(sec.Name, ".zdebug_") {
			t.Errorf("the binary keeps section %s", sec.Name)
		}
	}
	info, err := exec.Command("go", "version", "-m", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath=true"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("go version -m: no %s\n%s", want, info)
		}
	}
	if fi, err := os.Stat(out); err == nil {
		t.Logf("static binary: %.1f MB", float64(fi.Size())/1e6)
	}
}
