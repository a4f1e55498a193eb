package verify_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"larder.dev/larder/client/verify"
	"larder.dev/larder/internal/webhooks"
)

// Verify accepts what the dispatcher signs, with either secret of a rotation,
// and refuses tampering, other secrets and stale timestamps.
func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	oldSecret, newSecret := webhooks.NewSecret(), webhooks.NewSecret()
	body := []byte(`{"id":"evt_1","type":"tag.created","created_at":"2027-01-15T08:00:00Z","environment":"live","source":"api","api_key_id":7,"request_id":"req_1","resource":{"type":"tag","id":3},"snapshot":{}}`)
	sig, err := webhooks.Sign("evt_1", now, body, newSecret, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	h := func(id string, ts time.Time, s string) http.Header {
		return http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {strconv.FormatInt(ts.Unix(), 10)}, "Webhook-Signature": {s}}
	}
	for _, s := range []string{oldSecret, newSecret} {
		e, err := verify.Verify(s, h("evt_1", now, sig), body, now.Add(time.Minute))
		if err != nil || e.ID != "evt_1" || !e.Echo(7) || e.Echo(8) {
			t.Fatalf("valid delivery: %v", err)
		}
	}
	cases := []struct {
		name   string
		secret string
		h      http.Header
		body   []byte
		want   error
	}{
		{"other secret", webhooks.NewSecret(), h("evt_1", now, sig), body, verify.ErrSignature},
		{"tampered body", newSecret, h("evt_1", now, sig), append([]byte(" "), body...), verify.ErrSignature},
		{"other id", newSecret, h("evt_2", now, sig), body, verify.ErrSignature},
		{"stale", newSecret, h("evt_1", now.Add(-time.Hour), sig), body, verify.ErrTimestamp},
		{"no signature", newSecret, h("evt_1", now, ""), body, verify.ErrMissingHeaders},
	}
	for _, tc := range cases {
		if _, err := verify.Verify(tc.secret, tc.h, tc.body, now); err != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
