package forms

import (
	"net/url"

	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/policy"
)

// Upload is what the imports page's forms name besides the file: the
// environment, the list the file holds and its format.
type Upload struct {
	// Env is live when the form names none.
	Env    policy.Environment
	List   string
	Format catalog.Format
}

// ParseUpload reads the environment (live when absent), a list known
// accepts, and a format catalog.ParseFormat accepts for a file called
// fileName (its extension decides when the form names none).
func ParseUpload(v url.Values, fileName string, known func(list string) bool) (Upload, Errors) {
	var errs Errors
	in := Upload{Env: policy.Live, List: get(v, "list")}
	switch env := get(v, "env"); env {
	case "", string(policy.Live):
	case string(policy.Test):
		in.Env = policy.Test
	default:
		errs.Add("", "Choose the live or the test environment.")
	}
	if !known(in.List) {
		errs.Add("list", "Choose the list the file holds.")
	}
	format, err := catalog.ParseFormat(get(v, "format"), fileName)
	if err != nil {
		errs.Add("format", "Choose CSV or JSON Lines.")
	}
	in.Format = format
	return in, errs
}
