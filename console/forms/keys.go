package forms

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/policy"
)

// The named scope sets a key may be created with, and the custom choice of
// checkboxes.
const (
	PresetReadAll = "read-all"
	PresetAll     = "all"
	PresetCustom  = "custom"
)

// NewKey is the keys page's create form.
type NewKey struct {
	// Env is the environment as sent (checked: live or test).
	Env    policy.Environment
	Name   string
	Preset string
	// Scopes are the preset's or the chosen boxes'; nil after an error.
	Scopes []policy.Scope
}

// ParseNewKey reads the create form: the environment, a name of at most
// auth.MaxNameLength characters, and a preset or at least one known scope.
func ParseNewKey(v url.Values) (NewKey, Errors) {
	var errs Errors
	k := NewKey{Env: policy.Environment(get(v, "env")), Name: get(v, "name"), Preset: get(v, "preset")}
	if k.Env != policy.Live && k.Env != policy.Test {
		errs.Add("", "Choose the live or the test environment.")
	}
	if n := utf8.RuneCountInString(k.Name); n > auth.MaxNameLength {
		errs.Add("name", fmt.Sprintf("The name has %d characters; use at most %d.", n, auth.MaxNameLength))
	}
	switch k.Preset {
	case PresetReadAll, PresetAll:
		k.Scopes, _ = policy.ParseScopes(k.Preset)
	case PresetCustom, "":
		chosen := v["scope"]
		bad := false
		for _, x := range chosen {
			if !slices.Contains(policy.Known(), policy.Scope(x)) {
				errs.Add("scope", fmt.Sprintf("%q is not a scope; choose among the boxes shown.", x))
				bad = true
			}
		}
		if len(chosen) == 0 {
			errs.Add("scope", "Choose at least one scope, or one of the presets above.")
			bad = true
		}
		if !bad {
			k.Scopes, _ = policy.ParseScopes(strings.Join(chosen, ","))
		}
	default:
		errs.Add("preset", "Choose what the key may do.")
	}
	if !errs.OK() {
		k.Scopes = nil
	}
	return k, errs
}

// ParseKeyRotation reads the rotate form: the grace period the old key
// keeps working (auth.ParseGrace).
func ParseKeyRotation(v url.Values) (time.Duration, Errors) {
	var errs Errors
	g, err := auth.ParseGrace(get(v, "grace"))
	if err != nil {
		errs.Add("grace", "Choose how long the old key keeps working.")
	}
	return g, errs
}
