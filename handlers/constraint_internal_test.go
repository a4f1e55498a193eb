package handlers

import "testing"

// TestSchemaConstraint: a unique index's name as Citus reports it from a
// shard ("<index>_<shard id>") is the schema's index, so that its declared
// answer and its field are found; a name the schema does not know stays as
// it is, and the violation's own columns name the field.
func TestSchemaConstraint(t *testing.T) {
	for in, want := range map[string]string{
		"shipping_addresses_one_default_103331": "shipping_addresses_one_default",
		"shipping_addresses_one_default":        "shipping_addresses_one_default",
		"tag_account_id_ref_type_name_7":        "tag_account_id_ref_type_name",
		"unknown_index_12":                      "unknown_index_12",
		"tag_account_id_ref_type_name_x1":       "tag_account_id_ref_type_name_x1",
	} {
		if got := schemaConstraint(in); got != want {
			t.Errorf("schemaConstraint(%q) = %q, want %q", in, got, want)
		}
	}
	if got := duplicateField(schemaConstraint("tag_account_id_ref_type_name_102041"), nil); got != "name" {
		t.Errorf("a shard's tag index names %q, want name", got)
	}
	if got := duplicateField("unknown_index_12", []string{"account_id", "supplier_code"}); got != "supplier_code" {
		t.Errorf("an unknown index with its columns names %q, want supplier_code", got)
	}
}
