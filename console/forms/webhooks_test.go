package forms

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

func TestParseEndpoint(t *testing.T) {
	var checked []string
	check := func(u string) error {
		checked = append(checked, u)
		if strings.Contains(u, "refused") {
			return errors.New("not https")
		}
		return nil
	}
	types := webhooks.Catalogue()
	ok := url.Values{"url": {" https://example.com/hook "}, "description": {"orders"}, "email": {"ops@example.com"}, "events": {"only"}, "types": types[:2]}
	in, errs := ParseEndpoint(ok, check)
	if !errs.OK() || in.URL != "https://example.com/hook" || in.Description != "orders" || in.Email != "ops@example.com" || len(in.Types) != 2 {
		t.Fatalf("%+v %v", in, errs)
	}
	if !slices.Equal(checked, []string{"https://example.com/hook"}) {
		t.Errorf("checked %v", checked)
	}
	if in, errs := ParseEndpoint(with(ok, "events", "all"), check); !errs.OK() || in.Types != nil {
		t.Errorf("all events: %v %v", in.Types, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseEndpoint(v, check); return e }
	checkRules(t, parse, []rule{
		{"no url", with(ok, "url", ""), "url", "Enter the URL events are posted to, starting with https://."},
		{"url too long", with(ok, "url", "https://example.com/"+strings.Repeat("a", MaxURL)), "url", fmt.Sprintf("Use at most %d characters.", MaxURL)},
		{"url refused", with(ok, "url", "http://refused.example.com"), "url", "This URL cannot be used: not https."},
		{"description too long", with(ok, "description", strings.Repeat("d", MaxDescription+1)), "description", fmt.Sprintf("Use at most %d characters.", MaxDescription)},
		{"description at the limit", with(ok, "description", strings.Repeat("d", MaxDescription)), "description", ""},
		{"email too long", with(ok, "email", strings.Repeat("e", MaxEmail)+"@x.io"), "email", fmt.Sprintf("Use at most %d characters.", MaxEmail)},
		{"email malformed", with(ok, "email", "ops"), "email", "Enter an e-mail address such as ops@example.com, or leave it empty."},
		{"no email", with(ok, "email", ""), "email", ""},
		{"no choice of events", with(ok, "events", ""), "events", "Choose All events or Only these."},
		{"only, none chosen", func() url.Values { v := with(ok); delete(v, "types"); return v }(), "types", "Choose at least one event type, or choose All events."},
	})
	if errs := parse(with(ok, "types", "order.eaten")); !strings.HasPrefix(errs["types"], "Choose event types from the list: ") {
		t.Errorf("unknown type: %q", errs["types"])
	}
	checked = nil
	parse(with(ok, "url", ""))
	if checked != nil {
		t.Errorf("an empty URL was checked: %v", checked)
	}
}

func TestParseEndpointEnv(t *testing.T) {
	env, errs := ParseEndpointEnv(url.Values{"env": {"test"}})
	if !errs.OK() || env != policy.Test {
		t.Errorf("%v %v", env, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseEndpointEnv(v); return e }, []rule{
		{"neither", url.Values{"env": {"prod"}}, "env", "Choose Live or Test."},
		{"live", url.Values{"env": {"live"}}, "env", ""},
	})
}

func TestParseSecretRotation(t *testing.T) {
	g, errs := ParseSecretRotation(url.Values{"grace": {"72h0m0s"}})
	if !errs.OK() || g != 72*time.Hour {
		t.Errorf("%v %v", g, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseSecretRotation(v); return e }, []rule{
		{"a duration not offered", url.Values{"grace": {"2h0m0s"}}, "grace", "Choose how long the old secret keeps signing."},
		{"not a duration", url.Values{"grace": {"soon"}}, "grace", "Choose how long the old secret keeps signing."},
		{"none", url.Values{"grace": {"0s"}}, "grace", ""},
	})
}

func TestParseResend(t *testing.T) {
	since, errs := ParseResend(url.Values{"since": {"2026-03-01T09:00"}})
	if !errs.OK() || !since.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("%v %v", since, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseResend(v); return e }, []rule{
		{"empty", url.Values{}, "since", "Enter the date and time (UTC) from which failed deliveries are sent again."},
		{"malformed", url.Values{"since": {"yesterday"}}, "since", "Enter a date and time such as 2026-03-01T09:00 (UTC)."},
		{"a time", url.Values{"since": {"2026-03-01T09:00"}}, "since", ""},
	})
}
