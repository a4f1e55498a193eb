package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"larder.dev/larder/internal/platform/store"
)

// TestOpenRequiresSnapshots: a client without the outbox's renderer could
// not write the events of changes, so Open refuses before connecting.
func TestOpenRequiresSnapshots(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "t.db")
	st, err := store.Open(context.Background(), url, store.Options{})
	if !errors.Is(err, store.ErrNoSnapshots) {
		if st != nil {
			st.Close()
		}
		t.Fatalf("Open without Snapshots: err %v, want ErrNoSnapshots", err)
	}
	if st != nil {
		t.Fatal("Open without Snapshots returned a store")
	}
}
