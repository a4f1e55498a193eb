package idempotency_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A claim completed in a transaction that the database aborted (a deadlock's
// victim) and RunInTx ran again is completed by the attempt that commits:
// the key replays that attempt's answer.
func TestCompleteInRetriedTransaction(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Live)
		fp := idempotency.Fingerprint([]byte(`{"supplier_id":1}`))
		claim, err := idempotency.Take(ctx, st.Client, "retried", "createBill", fp, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		attempt := 0
		err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			attempt++
			body := []byte(`{"data":{"attempt":` + strconv.Itoa(attempt) + `}}`)
			if err := claim.Complete(ctx, tx, 201, body); err != nil {
				return err
			}
			if attempt == 1 {
				return &pq.Error{Code: "40P01", Message: "deadlock detected"}
			}
			return nil
		})
		if err != nil || attempt != 2 {
			t.Fatalf("%d attempts: %v", attempt, err)
		}
		again, err := idempotency.Take(ctx, st.Client, "retried", "createBill", fp, time.Now())
		if err != nil || !again.Replay || again.Status != 201 || string(again.Body) != `{"data":{"attempt":2}}` {
			t.Fatalf("replay %+v, %v; want the second attempt's answer", again, err)
		}
	})
}
