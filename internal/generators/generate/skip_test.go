package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A guarded step runs when it has not run, when an input changed or when an
// output is no longer what it wrote, and only then.
func TestGuardedRunsOnlyWhenSomethingChanged(t *testing.T) {
	t.Chdir(t.TempDir())
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("in/a.txt", "a")
	write("in/skipped.txt", "x")
	runs := 0
	g := guarded{
		name: "copy",
		rec:  &sharedRecord{r: record{}},
		in:   files{paths: []string{"in"}, skipSuffix: []string{"skipped.txt"}},
		out:  files{paths: []string{"out"}},
		task: taskFunc(func() error {
			runs++
			b, err := os.ReadFile("in/a.txt")
			if err != nil {
				return err
			}
			write("out/a.txt", string(b))
			return nil
		}),
	}
	expect := func(what string, want int) {
		t.Helper()
		if err := g.do(); err != nil {
			t.Fatal(err)
		}
		if runs != want {
			t.Fatalf("%s: ran %d times, want %d", what, runs, want)
		}
	}
	expect("first", 1)
	expect("nothing changed", 1)
	write("in/skipped.txt", "y")
	expect("a left-out input changed", 1)
	write("in/a.txt", "b")
	expect("an input changed", 2)
	expect("nothing changed again", 2)
	write("out/a.txt", "edited by hand")
	expect("an output changed", 3)
	write("in/b.txt", "new")
	expect("an input added", 4)
	t.Setenv(forceEnv, "1")
	expect("forced", 5)
	t.Setenv(forceEnv, "")

	// A step that failed is run again, even with the inputs it last ran
	// with successfully.
	g.task = taskFunc(func() error { runs++; return errors.New("failed") })
	write("in/a.txt", "c")
	if err := g.do(); err == nil {
		t.Fatal("the failure was not reported")
	}
	g.task = taskFunc(func() error { runs++; return nil })
	write("in/a.txt", "b")
	expect("after a failure", 7)
}

type taskFunc func() error

func (f taskFunc) do() error { return f() }
