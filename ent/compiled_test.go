package ent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/allergen"
	"larder.dev/larder/ent/country"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/fastpath/trust"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A client without the compiled reads (fastpath.CompiledReads off) compiles
// no statement and reads as ent builds the query: the same row.
func TestPlainReadsCompileNothing(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			fast, plain := dbtest.Pair(t, b, fastpath.All, fastpath.All.Without(fastpath.CompiledReads))
			ctx := dbtest.NewOrg(t, fast, "").Ctx(policy.Test)
			e, err := fast.Client.Tag.Create().SetName("plain").SetDescription("read").SetRefType(tag.RefTypePRODUCT).Save(hooks.WithoutEvents(ctx))
			if err != nil {
				t.Fatal(err)
			}
			// A shape no other test reads: the description alone.
			read := func(c *ent.Client) *ent.Tag {
				t.Helper()
				q := c.Tag.Query().ByID(e.ID)
				q.Select(tag.FieldDescription)
				got, err := q.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			before, _ := ent.CompiledReads("tag")
			if got := read(plain.Client); got.Description == nil || *got.Description != "read" {
				t.Errorf("plain Read = %+v", got)
			}
			if after, _ := ent.CompiledReads("tag"); len(after) != len(before) {
				t.Errorf("a plain client compiled %d statements", len(after)-len(before))
			}
			if got := read(fast.Client); got.Description == nil || *got.Description != "read" {
				t.Errorf("compiled Read = %+v", got)
			}
			if after, _ := ent.CompiledReads("tag"); len(after) != len(before)+1 {
				t.Errorf("the fast client compiled %d statements for a new shape, want 1", len(after)-len(before))
			}
		})
	}
}

// Read answers a query of known predicates (ByID, the tenant filter) from a
// statement compiled once per shape: it sends the very statement, arguments
// included, that ent's Only sends for the same query, reads the same row, and
// keeps the tenant filter, a carried column and every other predicate. A query
// with any predicate that is not known, or a known one that does not take its
// argument once, is read as ent builds it.
func TestReadCompiled(t *testing.T) {
	needCompiledReads(t)
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		c, statements := observed(t, st)
		mine, theirs := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ctx := mine.Ctx(policy.Test)
		var tags []*ent.Tag
		for _, name := range []string{"t0", "t1", "t2"} {
			e, err := st.Client.Tag.Create().SetName(name).SetDescription("d " + name).SetRefType(tag.RefTypePRODUCT).Save(hooks.WithoutEvents(ctx))
			if err != nil {
				t.Fatal(err)
			}
			tags = append(tags, e)
		}
		other, err := st.Client.Tag.Create().SetName("u0").SetRefType(tag.RefTypeCUSTOMER).Save(hooks.WithoutEvents(theirs.Ctx(policy.Test)))
		if err != nil {
			t.Fatal(err)
		}
		same := func(name string, ctx context.Context, build func() *ent.TagQuery) *ent.Tag {
			t.Helper()
			return sameRead(t, statements, name, ctx, 1, build, cmpopts.IgnoreUnexported(ent.Tag{}, ent.TagEdges{}))
		}
		before, failedBefore := ent.CompiledReads("tag")
		for _, e := range tags {
			got := same("every column", ctx, func() *ent.TagQuery { return c.Tag.Query().ByID(e.ID) })
			if got.ID != e.ID || got.Name != e.Name || (got.Description == nil) != (e.Description == nil) || got.AccountID != e.AccountID {
				t.Errorf("Read(%d) = %+v; want %+v", e.ID, got, e)
			}
			got = same("shown columns", ctx, func() *ent.TagQuery {
				q := c.Tag.Query().ByID(e.ID)
				q.Select(tag.FieldName, tag.FieldRefType)
				return q
			})
			if got.Name != e.Name || got.RefType != tag.RefTypePRODUCT || got.Description != nil {
				t.Errorf("Read(%d) of name and ref_type = %+v", e.ID, got)
			}
		}
		compiled, failed := ent.CompiledReads("tag")
		if len(compiled) != len(before)+2 || failed != failedBefore {
			t.Fatalf("compiled %d statements (%d failed) for two shapes: %q", len(compiled)-len(before), failed, compiled)
		}

		// Another account's row is not found, by the compiled statement.
		byRead, err := statements(func() error { _, err := c.Tag.Query().ByID(other.ID).Read(ctx); return err })
		if !ent.IsNotFound(err) || len(byRead) != 1 {
			t.Errorf("another account's tag: %v after %q; want not found after one statement", err, byRead)
		}
		if _, err := c.Tag.Query().ByID(other.ID).Read(theirs.Ctx(policy.Test)); err != nil {
			t.Errorf("its own account's Read: %v", err)
		}

		// A predicate that is not known, before or after ByID, is kept.
		for name, q := range map[string]*ent.TagQuery{
			"after":  c.Tag.Query().ByID(tags[0].ID).Where(tag.Name("t1")),
			"before": c.Tag.Query().Where(tag.Name("t1")).ByID(tags[0].ID),
		} {
			if _, err := q.Read(ctx); !ent.IsNotFound(err) {
				t.Errorf("a predicate %s ByID: %v; want not found", name, err)
			}
		}
		if _, err := c.Tag.Query().ByID(tags[0].ID).Where(tag.Name("t0")).Read(ctx); err != nil {
			t.Errorf("a predicate after ByID that holds: %v", err)
		}
		if _, err := c.Tag.Query().ByID(tags[0].ID).ByID(tags[1].ID).Read(ctx); !ent.IsNotFound(err) {
			t.Errorf("two ids: %v; want not found", err)
		}

		// Edges to load are loaded as ent loads them, and the key columns
		// they need are selected.
		sys := policy.System(context.Background())
		unexported := cmpopts.IgnoreUnexported(ent.Tag{}, ent.TagEdges{}, ent.Account{}, ent.AccountEdges{}, ent.Organization{}, ent.OrganizationEdges{})
		sameRead(t, statements, "its name", sys, 1, func() *ent.TagQuery {
			q := c.Tag.Query().ByID(tags[0].ID)
			q.Select(tag.FieldName)
			return q
		}, unexported)
		withAccount := sameRead(t, statements, "its name with its account", sys, 2, func() *ent.TagQuery {
			q := c.Tag.Query().ByID(tags[0].ID).WithAccount()
			q.Select(tag.FieldName)
			return q
		}, unexported)
		if withAccount.Edges.Account == nil || withAccount.Edges.Account.ID != tags[0].AccountID {
			t.Errorf("Read with its account: %+v", withAccount)
		}
		org := sameRead(t, statements, "an organization's accounts", sys, 2, func() *ent.OrganizationQuery {
			return c.Organization.Query().ByID(mine.Org.ID).WithAccounts()
		}, unexported)
		if len(org.Edges.Accounts) != 2 {
			t.Errorf("Read of an organization with its accounts: %d accounts, want 2", len(org.Edges.Accounts))
		}

		// A carried column's arguments take their places among the query's.
		holds := testHolds(st.Dialect)
		for _, tc := range []struct {
			v, w  any
			holds bool
		}{{7, 7, true}, {7, 8, false}, {tags[1].ID, tags[2].ID, false}, {tags[2].ID, tags[2].ID, true}} {
			byEnt := trust.New(holds, []any{tc.v, tc.w})
			byRead := trust.New(holds, []any{tc.v, tc.w})
			var want, got *ent.Tag
			s1, err1 := statements(func() (err error) { want, err = c.Tag.Query().ByID(tags[2].ID).Only(ent.Carry(ctx, byEnt)); return err })
			s2, err2 := statements(func() (err error) { got, err = c.Tag.Query().ByID(tags[2].ID).Read(ent.Carry(ctx, byRead)); return err })
			if err1 != nil || err2 != nil || got.Name != "t2" || want.Name != "t2" {
				t.Fatalf("key check %v: %v, %v", tc, err1, err2)
			}
			if !slices.Equal(s1, s2) || len(s2) != 1 || !strings.Contains(s2[0], "test_check") {
				t.Errorf("key check %v: Read sent %q; ent sent %q", tc, s2, s1)
			}
			if h, seen := byRead.Seen(); h != tc.holds || !seen {
				t.Errorf("key check %v: Seen() = %v, %v; want %v, true", tc, h, seen, tc.holds)
			}
		}

		// A Fixed known predicate (no argument) compiles and is kept.
		noDescription := &ent.Known{Fixed: true, Make: func(any) func(*entsql.Selector) { return tag.DescriptionIsNil() }}
		bare, err := st.Client.Tag.Create().SetName("bare").SetRefType(tag.RefTypePRODUCT).Save(hooks.WithoutEvents(ctx))
		if err != nil {
			t.Fatal(err)
		}
		before, failedBefore = ent.CompiledReads("tag")
		same("a fixed predicate", ctx, func() *ent.TagQuery { return c.Tag.Query().ByID(bare.ID).WhereKnown(noDescription, nil) })
		if _, err := c.Tag.Query().ByID(tags[0].ID).WhereKnown(noDescription, nil).Read(ctx); !ent.IsNotFound(err) {
			t.Errorf("a fixed predicate that excludes the row: %v; want not found", err)
		}
		if compiled, failed := ent.CompiledReads("tag"); len(compiled) != len(before)+1 || failed != failedBefore {
			t.Errorf("a fixed predicate: %d statements compiled, %d failed; want one compiled", len(compiled)-len(before), failed-failedBefore)
		}

		// A carried column's argument the builder would write into the text (nil
		// is NULL) is never put into a compiled statement.
		gone := trust.New(holds, []any{nil, 7})
		s1, err1 := statements(func() error {
			_, err := c.Tag.Query().ByID(tags[2].ID).Only(ent.Carry(ctx, trust.New(holds, []any{nil, 7})))
			return err
		})
		s2, err2 := statements(func() error { _, err := c.Tag.Query().ByID(tags[2].ID).Read(ent.Carry(ctx, gone)); return err })
		if err1 != nil || err2 != nil || !slices.Equal(s1, s2) {
			t.Errorf("a nil key argument: Read sent %q (%v); ent sent %q (%v)", s2, err2, s1, err1)
		}
		if h, seen := gone.Seen(); h || !seen {
			t.Errorf("a nil key argument: Seen() = %v, %v; want false, true", h, seen)
		}

		// A known predicate that looks into its argument, or does not take
		// it, is not compiled.
		_, failed = ent.CompiledReads("tag")
		looks := &ent.Known{Make: func(v any) func(*entsql.Selector) { return entsql.FieldEQ(tag.FieldName, v.(string)) }}
		q := c.Tag.Query()
		q.Filter().WhereKnown(looks, "t1")
		if got, err := q.ByID(tags[1].ID).Read(ctx); err != nil || got.Name != "t1" {
			t.Errorf("a Known that looks into its argument: %v, %v", got, err)
		}
		if _, after := ent.CompiledReads("tag"); after != failed+1 {
			t.Errorf("shapes that could not be compiled: %d, then %d; want one more", failed, after)
		}
		// A known predicate that does not take its argument is not compiled.
		_, failed = ent.CompiledReads("tag")
		fixed := &ent.Known{Make: func(any) func(*entsql.Selector) { return entsql.FieldEQ(tag.FieldName, "t1") }}
		for id, found := range map[int]bool{tags[0].ID: false, tags[1].ID: true} {
			q := c.Tag.Query()
			q.Filter().WhereKnown(fixed, "t0")
			_, err := q.ByID(id).Read(ctx)
			if found != (err == nil) || (!found && !ent.IsNotFound(err)) {
				t.Errorf("a Known that ignores its argument, id %d: %v; want found %v", id, err, found)
			}
		}
		if _, after := ent.CompiledReads("tag"); after != failed+1 {
			t.Errorf("shapes that could not be compiled: %d, then %d; want one more", failed, after)
		}
	})
}

// A type holds at most MaxShapes compiled statements; a shape past them is
// read as ent builds it, and right.
func TestReadCompiledShapesBounded(t *testing.T) {
	needCompiledReads(t)
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		c, statements := observed(t, st)
		ctx := dbtest.NewOrg(t, st, "").Ctx(policy.Test)
		shared, err := st.Client.Country.Query().Where(country.IsGlobal(true)).First(policy.System(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		// Every ordering of some of these fields is a shape of its own.
		fields := []string{country.FieldCode, country.FieldName, country.FieldNameFr, country.FieldCreatedAt, country.FieldUpdatedAt}
		var orders [][]string
		var grow func(have []string, rest []string)
		grow = func(have, rest []string) {
			if len(have) > 0 {
				orders = append(orders, slices.Clone(have))
			}
			for i, f := range rest {
				grow(append(slices.Clip(have), f), append(slices.Clone(rest[:i]), rest[i+1:]...))
			}
		}
		grow(nil, fields)
		before, _ := ent.CompiledReads("country")
		for _, order := range orders[:ent.MaxShapes+10] {
			got := sameRead(t, statements, fmt.Sprint(order), ctx, 1, func() *ent.CountryQuery {
				q := c.Country.Query().ByID(shared.ID)
				q.Select(order...)
				return q
			}, cmpopts.IgnoreUnexported(ent.Country{}, ent.CountryEdges{}))
			if got.ID != shared.ID {
				t.Fatalf("%v: read %d, want %d", order, got.ID, shared.ID)
			}
		}
		compiled, failed := ent.CompiledReads("country")
		if len(compiled)+failed != ent.MaxShapes || len(compiled) < len(before) {
			t.Errorf("the country's reads hold %d statements and %d failed shapes; want %d in all", len(compiled), failed, ent.MaxShapes)
		}
	})
}

// needCompiledReads skips t, visibly, when LARDER_FAST_PATH turns the
// compiled reads off: the stores of dbtest then read every query as ent
// builds it and compile nothing (TestPlainReadsCompileNothing), so there is
// no compiled statement to compare with ent's.
func needCompiledReads(t *testing.T) {
	t.Helper()
	if fast, err := fastpath.FromEnv(); err == nil && !fast.Has(fastpath.CompiledReads) {
		t.Skipf("%s=%s turns the compiled reads off: nothing to compare with ent's statements", fastpath.Env, fast)
	}
}

// observed is the client of a second pool on st's database, opened as
// production opens its store (dbtest.Observed), and a function that returns
// the statements f sends to the database, each as its SQL and its
// arguments. The statement cache's preparations are left out: a statement
// it prepared runs as the same SQL with the same arguments as one sent
// unprepared, which is what the tests compare.
func observed(t *testing.T, st *store.Store) (*ent.Client, func(f func() error) ([]string, error)) {
	var mu sync.Mutex
	var sent []string
	c := dbtest.Observed(t, st, func(c store.Call) {
		if !c.Statement() {
			return
		}
		mu.Lock()
		sent = append(sent, fmt.Sprintf("%s args=%v", c.SQL, c.Args))
		mu.Unlock()
	}).Client
	return c, func(f func() error) ([]string, error) {
		mu.Lock()
		sent = nil
		mu.Unlock()
		err := f()
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sent), err
	}
}

// sameRead reads the query build makes by ent's Only and by Read, and fails
// unless both send the same n statements, arguments included, and read the
// same node, which it returns.
func sameRead[N any, Q interface {
	Only(context.Context) (N, error)
	Read(context.Context) (N, error)
}](t *testing.T, statements func(func() error) ([]string, error), name string, ctx context.Context, n int, build func() Q, opts ...cmp.Option) N {
	t.Helper()
	var want, got N
	byEnt, err := statements(func() (err error) { want, err = build().Only(ctx); return err })
	if err != nil {
		t.Fatalf("%s: ent: %v", name, err)
	}
	byRead, err := statements(func() (err error) { got, err = build().Read(ctx); return err })
	if err != nil {
		t.Fatalf("%s: Read: %v", name, err)
	}
	if len(byRead) != n || !slices.Equal(byRead, byEnt) {
		t.Errorf("%s: Read sent %q; ent sent %q", name, byRead, byEnt)
	}
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s: Read's node differs from ent's (-ent +Read):\n%s", name, d)
	}
	return got
}

// The tenant filter of a shared schema is compiled too: a shared row and the
// account's own are found, another account's is not.
func TestReadCompiledShared(t *testing.T) {
	needCompiledReads(t)
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		mine, theirs := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ctx := mine.Ctx(policy.Test)
		shared, err := st.Client.Allergen.Query().Where(allergen.IsGlobal(true)).First(policy.System(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		own, err := st.Client.Allergen.Create().SetCode("zz1").SetName("Own").SetNameFr("Propre").Save(hooks.WithoutEvents(ctx))
		if err != nil {
			t.Fatal(err)
		}
		their, err := st.Client.Allergen.Create().SetCode("zz2").SetName("Theirs").SetNameFr("Autre").Save(hooks.WithoutEvents(theirs.Ctx(policy.Test)))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			id    int
			found bool
		}{{shared.ID, true}, {own.ID, true}, {their.ID, false}} {
			got, err := st.Client.Allergen.Query().ByID(tc.id).Read(ctx)
			if tc.found && (err != nil || got.ID != tc.id) {
				t.Errorf("allergen %d: %v, %v; want found", tc.id, got, err)
			}
			if !tc.found && !ent.IsNotFound(err) {
				t.Errorf("another account's allergen: %v; want not found", err)
			}
		}
		compiled, failed := ent.CompiledReads("allergen")
		if failed != 0 || !slices.ContainsFunc(compiled, func(s string) bool { return strings.Contains(s, "is_global") }) {
			t.Errorf("allergen statements %q, %d failed; want one with is_global", compiled, failed)
		}
	})
}
