// Package webhooks delivers the outbox's events to the endpoints accounts
// register: signed with the Standard Webhooks scheme, retried on a schedule,
// logged, and safe against endpoints that point into private networks.
//
// The dispatcher fans each committed event (hooks.Outbox) out to one delivery
// per endpoint of its account, then posts due deliveries. Every step is a
// short transaction; posts happen outside them, under a lease, so several
// processes can share the work on PostgreSQL (FOR UPDATE SKIP LOCKED) and a
// process that dies mid-post leaves a delivery another takes up when the lease
// runs out: delivery is at least once, and receivers deduplicate by event id.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// NewSecret returns a new endpoint secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey returns the HMAC key of a whsec_ secret.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook secret is not whsec_<base64>: %w", err)
	}
	return key, nil
}

// Sign returns the webhook-signature header of a message: one
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" per secret, space-separated
// (two during a secret rotation, the newest first).
func Sign(id string, ts time.Time, body []byte, secrets ...string) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
