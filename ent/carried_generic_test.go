package ent_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// every is a carried column that every query asks for: its one argument,
// read back with each row.
type every struct {
	dialect string
	arg     int
	values  []any
}

func (e *every) Column() string { return "test_every" }
func (e *every) Args() []any    { return []any{e.arg} }
func (e *every) Wants() bool    { return true }
func (e *every) Scan(v any) error {
	e.values = append(e.values, v)
	return nil
}

func (e *every) Write(b *entsql.Builder, args []any) {
	b.Arg(args[0])
	if e.dialect == dialect.Postgres {
		b.WriteString("::int")
	}
}

// The carried column is the carrier's: its alias, its arguments and its
// choice of queries. Each row hands it its value, a count never selects it,
// and Read keeps a statement of its own for it, the one ent's Only sends.
func TestCarriedIsTheCarriers(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		var ids []int
		for i := range 2 {
			tg, err := st.Client.Tag.Create().SetName(fmt.Sprintf("e%d", i)).SetRefType(tag.RefTypePRODUCT).Save(hooks.WithoutEvents(ctx))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tg.ID)
		}
		// carrying is how many compiled statements of Tag select the column.
		carrying := func() int {
			compiled, _ := ent.CompiledReads("tag")
			n := 0
			for _, text := range compiled {
				if strings.Contains(text, "test_every") {
					n++
				}
			}
			return n
		}
		before := carrying()
		c, statements := observed(t, st)
		e := &every{dialect: st.Dialect, arg: 41}
		cctx := ent.Carry(ctx, e)
		rows, err := c.Tag.Query().Where(tag.IDIn(ids...)).Order(tag.ByID()).All(cctx)
		if err != nil || len(rows) != 2 || rows[0].Name != "e0" {
			t.Fatalf("rows %v, %v", rows, err)
		}
		if n, err := c.Tag.Query().Where(tag.IDIn(ids...)).Count(cctx); err != nil || n != 2 {
			t.Fatalf("a count: %d, %v", n, err)
		}
		if len(e.values) != 2 || fmt.Sprint(e.values[0]) != "41" || fmt.Sprint(e.values[1]) != "41" {
			t.Errorf("the rows carried %v; want 41 twice (none for the count)", e.values)
		}
		for range 2 {
			var byEnt, byRead *ent.Tag
			s1, err1 := statements(func() (err error) { byEnt, err = c.Tag.Query().ByID(ids[1]).Only(cctx); return err })
			s2, err2 := statements(func() (err error) { byRead, err = c.Tag.Query().ByID(ids[1]).Read(cctx); return err })
			if err1 != nil || err2 != nil || byEnt.Name != "e1" || byRead.Name != "e1" {
				t.Fatalf("read by id: %v, %v", err1, err2)
			}
			if !slices.Equal(s1, s2) || len(s2) != 1 || !strings.Contains(s2[0], "test_every") {
				t.Errorf("Read sent %q; ent sent %q", s2, s1)
			}
		}
		if len(e.values) != 6 {
			t.Errorf("%d values carried; want 6", len(e.values))
		}
		if fast, err := fastpath.FromEnv(); err == nil && fast.Has(fastpath.CompiledReads) {
			if n := carrying(); n != before+1 {
				t.Errorf("%d compiled statements select test_every, %d before; want one more, kept for its alias", n, before)
			}
		}
	})
}
