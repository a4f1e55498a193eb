package handlers

import "testing"

// TestDuplicateFieldOfAnUnknownIndex: a unique violation of an index the
// schema does not know names the last of its own columns that is not the
// account; a known index names its last column.
func TestDuplicateFieldOfAnUnknownIndex(t *testing.T) {
	if got := duplicateField("unknown_index_12", []string{"account_id", "supplier_code"}); got != "supplier_code" {
		t.Errorf("an unknown index with its columns names %q, want supplier_code", got)
	}
	if got := duplicateField("tag_account_id_ref_type_name", nil); got != "name" {
		t.Errorf("the tag index names %q, want name", got)
	}
}
