// Package verify is the receiving side of Larder webhooks, for integrators: it
// checks a delivery's Standard Webhooks signature and timestamp, and decodes
// the envelope so a handler can deduplicate by event id and ignore the echo of
// its own writes. It depends on the standard library only.
package verify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a delivery's timestamp may be from the receiver's clock.
const Tolerance = 5 * time.Minute

// Errors of Verify.
var (
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp      = errors.New("webhook: timestamp outside the tolerance")
	ErrSignature      = errors.New("webhook: no valid signature")
)

// Event is the envelope of a delivery.
type Event struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	Environment string    `json:"environment"`
	Source      string    `json:"source"`
	APIKeyID    *int      `json:"api_key_id,omitempty"`
	RequestID   *string   `json:"request_id,omitempty"`
	UserID      *int      `json:"user_id,omitempty"`
	Resource    struct {
		Type string `json:"type"`
		ID   int    `json:"id"`
	} `json:"resource"`
	Snapshot json.RawMessage `json:"snapshot"`
}

// Verify checks body and headers against the endpoint secret (whsec_…) at
// time now, and returns the decoded event. Any one of the space-separated
// signatures may match (there are two while Larder rotates the secret).
func Verify(secret string, headers http.Header, body []byte, now time.Time) (*Event, error) {
	id, ts, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return nil, ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return nil, ErrTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return nil, ErrTimestamp
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return nil, errors.New("webhook: the secret is not whsec_<base64>")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		v, sig, ok := strings.Cut(s, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			var e Event
			if err := json.Unmarshal(body, &e); err != nil {
				return nil, err
			}
			if e.ID != id {
				return nil, errors.New("webhook: envelope id differs from webhook-id")
			}
			return &e, nil
		}
	}
	return nil, ErrSignature
}

// Echo reports whether the event was caused by an API call made with one of
// the given keys (by id): an integration ignores the echo of its own writes.
func (e *Event) Echo(keyIDs ...int) bool {
	if e.Source != "api" || e.APIKeyID == nil {
		return false
	}
	for _, k := range keyIDs {
		if *e.APIKeyID == k {
			return true
		}
	}
	return false
}
