package forms

import (
	"fmt"
	"net/url"
)

// Settings is the settings form: its boxes (an unticked box is not sent,
// so the form always says what both should be).
type Settings struct {
	BlockUnapprovedSuppliers, ManualCosting bool
}

// ParseSettings reads the settings form.
func ParseSettings(v url.Values) Settings {
	return Settings{BlockUnapprovedSuppliers: has(v, "block_unapproved_suppliers", "yes"), ManualCosting: has(v, "manual_costing", "yes")}
}

// ParseTestReset reads the test data's reset form: the organization's name
// typed exactly, as a confirmation.
func ParseTestReset(v url.Values, organization string) Errors {
	var errs Errors
	switch name := get(v, "name"); {
	case name == "":
		errs.Add("name", "Type the organization's name to confirm the reset.")
	case name != organization:
		errs.Add("name", fmt.Sprintf("That is not the organization's name. Type “%s” exactly to confirm the reset.", organization))
	}
	return errs
}
