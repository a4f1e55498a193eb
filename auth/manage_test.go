package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/auth"
	"larder.dev/larder/dbtest"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Spec Authentication 4: at most 50 active keys per environment, even when
// keys are created concurrently; the other environment has its own 50.
func TestActiveKeyLimit(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := context.Background()
		all := policy.Known()
		for range auth.MaxActiveKeys - 3 {
			if _, err := auth.CreateKey(ctx, st.Client, org.Org.ID, policy.Live, all, ""); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		created, refused := 0, 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := auth.CreateKey(ctx, st.Client, org.Org.ID, policy.Live, all, "")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case strings.Contains(err.Error(), "active live keys"):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if created != 3 || refused != 5 {
			t.Fatalf("%d created, %d refused; want 3 and 5", created, refused)
		}
		if _, err := auth.CreateKey(ctx, st.Client, org.Org.ID, policy.Test, all, ""); err != nil {
			t.Fatalf("the test environment has its own limit: %v", err)
		}
	})
}
