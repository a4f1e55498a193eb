package hooks

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/policy"
)

// accountSnapshots renders each value as "viewer's account/value's id" and
// records the account of each Render call.
type accountSnapshots struct{ calls []int }

func (*accountSnapshots) Subject(ent.Value) (string, int, ent.Value, bool) { return "", 0, nil, false }

func (s *accountSnapshots) Render(ctx context.Context, _ *gen.Client, vs []ent.Value) ([][]byte, error) {
	v := policy.FromContext(ctx)
	if !v.IsSystem() {
		return nil, fmt.Errorf("rendered without the system viewer")
	}
	s.calls = append(s.calls, v.AccountID)
	out := make([][]byte, len(vs))
	for i, x := range vs {
		var id int
		switch e := x.(type) {
		case *gen.Tag:
			id = e.ID
		case *gen.Allergen:
			id = e.ID
		}
		out[i] = fmt.Appendf(nil, "%d/%d", v.AccountID, id)
	}
	return out, nil
}

// renderByAccount renders each account's records under the system viewer
// narrowed to it, a shared row's under the system viewer itself, each body in
// its record's place; one account's records in one call.
func TestRenderByAccount(t *testing.T) {
	sys := policy.System(context.Background())
	one := &accountSnapshots{}
	got, err := renderByAccount(sys, one, nil, []ent.Value{&gen.Tag{ID: 1, AccountID: 7}, &gen.Tag{ID: 2, AccountID: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"7/1", "7/2"}; !slices.Equal(strs(got), want) || !slices.Equal(one.calls, []int{7}) {
		t.Errorf("one account: bodies %q in calls %v, want %q in one call for account 7", strs(got), one.calls, want)
	}

	mixed := &accountSnapshots{}
	got, err = renderByAccount(sys, mixed, nil, []ent.Value{
		&gen.Tag{ID: 1, AccountID: 7}, &gen.Tag{ID: 2, AccountID: 8}, &gen.Allergen{ID: 3}, &gen.Tag{ID: 4, AccountID: 7},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"7/1", "8/2", "0/3", "7/4"}; !slices.Equal(strs(got), want) || !slices.Equal(mixed.calls, []int{7, 8, 0}) {
		t.Errorf("mixed accounts: bodies %q in calls %v, want %q in calls [7 8 0]", strs(got), mixed.calls, want)
	}
}

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}
