package fastpath

import (
	"testing"

	goerrors "github.com/go-faster/errors"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Set
	}{
		{"true", All},
		{"TRUE", All},
		{"on", All},
		{"false", Plain},
		{"0", Plain},
		{"-compiled-reads", All.Without(CompiledReads)},
		{"true,-compiled-reads,-batched-log", All.Without(CompiledReads, BatchedLog)},
		{"statement-cache,compiled-reads", Plain.with(StatementCache, CompiledReads)},
		// Trusted keys spend what the reserved budget reserves.
		{"-reserved-budget", All.Without(ReservedBudget, TrustedKeys)},
		{"trusted-keys", Plain},
		{"reserved-budget,trusted-keys", Plain.with(ReservedBudget, TrustedKeys)},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q) = %v, %v; want %v (its String)", got.String(), again, err, got)
		}
	}
	for _, bad := range []string{"", "maybe", "-statement-cache,fast"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}

func TestMechanisms(t *testing.T) {
	ms := Mechanisms()
	if len(ms) != len(names) {
		t.Fatalf("%d mechanisms, %d names", len(ms), len(names))
	}
	for i, m := range ms {
		if m.String() != names[i] {
			t.Errorf("mechanism %d is %q, want %q", i, m, names[i])
		}
		if !All.Has(m) || Plain.Has(m) {
			t.Errorf("%s: on in All %v, in Plain %v", m, All.Has(m), Plain.Has(m))
		}
		if All.Without(m).Has(m) {
			t.Errorf("%s is still on without it", m)
		}
	}
	if (Set{}) != All {
		t.Error("the zero Set is not every mechanism on")
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(Env, "false")
	if s, err := FromEnv(); err != nil || s != Plain {
		t.Errorf("FromEnv with %s=false: %v, %v", Env, s, err)
	}
	t.Setenv(Env, "-batched-log")
	if s, err := FromEnv(); err != nil || s != All.Without(BatchedLog) {
		t.Errorf("FromEnv with %s=-batched-log: %v, %v", Env, s, err)
	}
}

// with is s with ms on.
func (s Set) with(ms ...Mechanism) Set {
	for _, m := range ms {
		s.off &^= m
	}
	return s
}

// ApplyProcess leaves go-faster/errors recording caller frames on the plain
// path, and stops it with untraced-errors. The plain set comes first: the
// library has no way back.
func TestApplyProcess(t *testing.T) {
	if !goerrors.Trace() {
		t.Skip("go-faster/errors records no frames in this build (noerrtrace) or was switched off before")
	}
	Plain.ApplyProcess()
	All.Without(UntracedErrors).ApplyProcess()
	if !goerrors.Trace() {
		t.Fatal("go-faster/errors stopped recording frames without untraced-errors")
	}
	Plain.with(UntracedErrors).ApplyProcess()
	if goerrors.Trace() {
		t.Fatal("go-faster/errors still records frames with untraced-errors")
	}
}
