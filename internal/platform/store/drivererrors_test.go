package store

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lib/pq"
)

// TestPostgresUniqueFromTheMessage: a unique violation that Citus relays
// from a worker carries its message and detail but no constraint field;
// the constraint and the columns are read from those, and the shard's copy
// of a schema's index ("<index>_<shard id>") is named as the schema's.
func TestPostgresUniqueFromTheMessage(t *testing.T) {
	for _, c := range []struct {
		err        *pq.Error
		constraint string
		cols       []string
	}{
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "tag_account_id_ref_type_name_102041"`,
			Detail: `Key (account_id, ref_type, name)=(2, PRODUCT, Organic) already exists.`},
			"tag_account_id_ref_type_name", []string{"account_id", "ref_type", "name"}},
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "shipping_addresses_one_default_103331"`},
			"shipping_addresses_one_default", nil},
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "unknown_index_12"`},
			"unknown_index_12", nil},
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "tag_account_id_ref_type_name_x1"`},
			"tag_account_id_ref_type_name_x1", nil},
		{&pq.Error{Code: "23505", Constraint: "items_code", Message: `duplicate key value violates unique constraint "other"`,
			Detail: `Key (code)=(x) already exists.`}, "items_code", []string{"code"}},
		{&pq.Error{Code: "23505", Message: "duplicate key", Detail: ""}, "", nil},
	} {
		constraint, cols, ok := postgresErrors{}.Unique(fmt.Errorf("wrapped: %w", c.err))
		if !ok || constraint != c.constraint || !slices.Equal(cols, c.cols) {
			t.Errorf("Unique(%q, %q) = %q, %q, %v; want %q, %q", c.err.Message, c.err.Detail, constraint, cols, ok, c.constraint, c.cols)
		}
	}
	if _, _, ok := (postgresErrors{}).Unique(&pq.Error{Code: "23503"}); ok {
		t.Error("a foreign key violation read as a unique one")
	}
}
