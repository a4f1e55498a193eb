package ent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A transaction PostgreSQL aborts to break a deadlock runs again, whole,
// inside RunInTx: both writers of a real deadlock succeed, the victim after
// a second attempt, and each commits all of its writes.
func TestRunInTxRetriesDeadlockVictim(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect != "postgres" {
			t.Skip("SQLite serialises writers: no transaction is ever a deadlock's victim")
		}
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		var rows [2]int
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			for i := range rows {
				tg, err := tx.Tag.Create().SetName(fmt.Sprint("row ", i)).SetRefType(tag.RefTypePRODUCT).Save(ctx)
				if err != nil {
					return err
				}
				rows[i] = tg.ID
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var (
			attempts [2]atomic.Int32
			holding  sync.WaitGroup // both hold their first row
			wg       sync.WaitGroup
			errs     [2]error
		)
		holding.Add(2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				errs[w] = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
					first := attempts[w].Add(1) == 1
					// Writer w takes row w, then the other one: opposite orders.
					for i, id := range []int{rows[w], rows[1-w]} {
						if err := tx.Tag.UpdateOneID(id).SetName(fmt.Sprintf("writer %d row %d", w, id)).Exec(ctx); err != nil {
							return err
						}
						if i == 0 && first {
							holding.Done()
							holding.Wait()
						}
					}
					return nil
				})
			}()
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		}
		// Usually three: one deadlock, its victim run again. On a loaded
		// machine the victim's second attempt can take its first row again
		// before the other writer, woken by the abort, has run: a second
		// deadlock, and a fourth attempt.
		if n := attempts[0].Load() + attempts[1].Load(); n < 3 || n > 2*int32(ent.TxAttempts) {
			t.Errorf("%d attempts in all, want at least 3: a deadlock, its victim run again", n)
		}
		// The writer that committed last wrote both rows.
		var names []string
		for _, id := range rows {
			tg, err := st.Client.Tag.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tg.Name)
		}
		last := names[0][:len("writer 0")]
		if names[0] != fmt.Sprintf("%s row %d", last, rows[0]) || names[1] != fmt.Sprintf("%s row %d", last, rows[1]) {
			t.Errorf("rows %q: not both the last writer's", names)
		}
	})
}

// RunInTx runs a transaction again only for a deadlock or a serialization
// failure, a bounded number of times, and never once its context has ended;
// each attempt starts from nothing.
func TestRunInTxRetries(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if ent.TxAttempts < 2 || ent.TxAttempts > 10 {
			t.Errorf("TxAttempts %d: a retry must happen and stay bounded", ent.TxAttempts)
		}
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		for _, c := range []struct {
			name   string
			err    error
			cancel bool // the context ends during the first attempt
			want   int32
		}{
			{"deadlock", &pq.Error{Code: "40P01"}, false, int32(ent.TxAttempts)},
			{"serialization failure", fmt.Errorf("wrapped: %w", &pq.Error{Code: "40001"}), false, int32(ent.TxAttempts)},
			{"unique violation", &pq.Error{Code: "23505"}, false, 1},
			{"another error", errors.New("refused"), false, 1},
			{"deadlock after the context ended", &pq.Error{Code: "40P01"}, true, 1},
		} {
			t.Run(c.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				var attempts atomic.Int32
				err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
					attempts.Add(1)
					// A write every attempt makes: a retry must not see the
					// one before.
					n, err := tx.Tag.Query().Where(tag.Name("attempt " + c.name)).Count(ctx)
					if err != nil {
						return err
					}
					if n != 0 {
						return fmt.Errorf("attempt %d sees %d rows of an attempt before", attempts.Load(), n)
					}
					if err := tx.Tag.Create().SetName("attempt " + c.name).SetRefType(tag.RefTypePRODUCT).Exec(ctx); err != nil {
						return err
					}
					if c.cancel {
						cancel()
					}
					return c.err
				})
				if !errors.Is(err, c.err) {
					t.Errorf("error %v, want %v", err, c.err)
				}
				if n := attempts.Load(); n != c.want {
					t.Errorf("%d attempts, want %d", n, c.want)
				}
			})
		}
	})
}
