package reqlog

import (
	"context"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// A request is found by its id in the row that holds it, even where
// another row's ids (drawn beside it by another writer) surround it; an id
// that a row's range covers but no row holds is not found, nor another
// account's.
func TestReadByIDAcrossOverlappingRows(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
		if err := MakeRoom(ctx, st, at); err != nil {
			t.Fatal(err)
		}
		const acct, other = 880001, 880002
		mk := func(account int64, ids ...int64) readRow {
			r := readRow{readGroup: readGroup{account: account, key: 1, method: "GET", operation: "getTag"}, ids: ids}
			for i, id := range ids {
				r.reads = append(r.reads, &row{at: at.Add(time.Duration(i) * time.Millisecond), status: 200, path: "/v1/tags/1",
					requestID: "req_byid_" + time.Duration(id).String()})
			}
			return r
		}
		rows := []readRow{
			mk(acct, 900100, 900101, 900102, 900120, 900121), // drawn around another writer's
			mk(acct, 900118, 900119, 900122),
			mk(other, 900111, 900112, 900117),
		}
		tx, err := st.DB.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := putReads(ctx, tx, st.Dialect, rows); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id   int
			want string
		}{
			{900120, "req_byid_900.12µs"}, {900121, "req_byid_900.121µs"}, {900119, "req_byid_900.119µs"},
			{900100, "req_byid_900.1µs"}, {900122, "req_byid_900.122µs"},
			{900117, ""}, {900111, ""}, {900123, ""}, {900099, ""},
		} {
			r, err := readByID(ctx, st.Client, acct, c.id)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r != nil {
				got = r.RequestID
				if r.ID != c.id {
					t.Errorf("id %d: read %d", c.id, r.ID)
				}
			}
			if got != c.want {
				t.Errorf("id %d: found %q, want %q", c.id, got, c.want)
			}
		}
	})
}
