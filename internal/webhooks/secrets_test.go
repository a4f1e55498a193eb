package webhooks_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/client/verify"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// newSecretKey is a LARDER_SECRET_KEY as an operator makes one.
func newSecretKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func keyring(t *testing.T, current, old string) *secrets.Keyring {
	t.Helper()
	k, err := secrets.NewKeyring(current, old)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// stored reads the encrypted-at-rest columns of an endpoint as the database
// holds them, past ent.
func stored(t *testing.T, st *store.Store, id int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range webhooks.Encrypted {
		var v *string
		q := fmt.Sprintf("SELECT %s FROM %s WHERE id = %d", c.Column, c.Table, id)
		if err := st.DB.QueryRowContext(context.Background(), q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != nil {
			out[c.Column] = *v
		}
	}
	return out
}

// verified checks that a request the receiver got carries a signature made
// with secret, as an integrator's receiver checks it.
func verified(t *testing.T, q request, secret string) bool {
	t.Helper()
	_, err := verify.Verify(secret, q.header, q.body, time.Now())
	return err == nil
}

// logBuffer is a logger's output read by the test.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// With a key, every signing secret is stored encrypted (the columns hold
// neither the secret nor its base64), the creator and the rotator are shown
// the plain secret, and deliveries carry signatures a receiver verifies with
// it, both secrets during a rotation.
func TestSigningSecretsStoredEncrypted(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		keys := keyring(t, newSecretKey(t), "")
		f.reg.Keys = keys
		r := newReceiver(t)
		ep := f.endpoint(t, f.org, policy.Live, r.URL)
		if !strings.HasPrefix(ep.Secret, "whsec_") {
			t.Fatalf("the creator is shown %q, not the plain secret", ep.Secret)
		}
		cols := stored(t, st, ep.ID)
		if s := cols["secret"]; !strings.HasPrefix(s, "enc:v1:") || strings.Contains(s, strings.TrimPrefix(ep.Secret, "whsec_")) {
			t.Fatalf("secret stored as %q", s)
		}
		d := f.dispatcher(webhooks.Options{Keys: keys})
		change(t, st, f.org, policy.Live, "a")
		drain(t, d)

		rotated, err := f.reg.RotateSecret(context.Background(), f.org.Org.ID, ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == ep.Secret {
			t.Fatalf("the rotator is shown %q", rotated.Secret)
		}
		cols = stored(t, st, ep.ID)
		for _, c := range webhooks.Encrypted {
			v, ok := cols[c.Column]
			if !ok || !strings.HasPrefix(v, "enc:v1:") {
				t.Errorf("%s.%s stored as %q after a rotation", c.Table, c.Column, v)
			}
			for _, plain := range []string{ep.Secret, rotated.Secret} {
				if strings.Contains(v, strings.TrimPrefix(plain, "whsec_")) {
					t.Errorf("%s.%s holds a plain secret", c.Table, c.Column)
				}
			}
		}
		change(t, st, f.org, policy.Live, "b")
		drain(t, d)
		got := r.requests()
		if len(got) != 2 {
			t.Fatalf("%d requests, want 2", len(got))
		}
		if !verified(t, got[0], ep.Secret) {
			t.Fatal("the first delivery does not verify with the secret shown at creation")
		}
		if !verified(t, got[1], ep.Secret) || !verified(t, got[1], rotated.Secret) {
			t.Fatal("during the rotation a delivery does not verify with both secrets")
		}
		if verified(t, got[1], webhooks.NewSecret()) {
			t.Fatal("a foreign secret verified")
		}
	})
}

// A stored secret is bound to its endpoint: copied to another endpoint's row
// it does not decrypt, and that endpoint's delivery fails visibly (an attempt
// with the error, a log line) without any request, signed or not, and without
// counting against the endpoint's health; the other endpoint is unaffected.
func TestSecretCopiedToAnotherEndpointDoesNotSign(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		keys := keyring(t, newSecretKey(t), "")
		f.reg.Keys = keys
		ra, rb := newReceiver(t), newReceiver(t)
		a := f.endpoint(t, f.org, policy.Live, ra.URL)
		b := f.endpoint(t, f.org, policy.Live, rb.URL)
		sys := policy.System(context.Background())
		if err := st.Client.WebhookEndpoint.UpdateOneID(b.ID).SetSecret(stored(t, st, a.ID)["secret"]).Exec(sys); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.reg.Delete(context.Background(), f.org.Org.ID, b.ID) })
		var logs logBuffer
		d := f.dispatcher(webhooks.Options{Keys: keys, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		change(t, st, f.org, policy.Live, "a")
		drain(t, d)
		if got := ra.requests(); len(got) != 1 || !verified(t, got[0], a.Secret) {
			t.Fatalf("endpoint a: %d requests", len(got))
		}
		if n := len(rb.requests()); n != 0 {
			t.Fatalf("endpoint b received %d requests with a secret it cannot read", n)
		}
		del := delivery(t, st, b)
		atts, err := st.Client.WebhookAttempt.Query().Where(webhookattempt.DeliveryID(del.ID)).All(sys)
		if err != nil {
			t.Fatal(err)
		}
		if len(atts) != 1 || atts[0].Success || atts[0].Error == nil || !strings.Contains(*atts[0].Error, "decrypt") ||
			atts[0].ResponseStatus != nil || atts[0].RequestHeaders["webhook-signature"] != "" {
			t.Fatalf("attempts of b: %+v", atts)
		}
		if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), fmt.Sprintf("endpoint=%d", b.ID)) {
			t.Fatalf("nothing logged: %q", logs.String())
		}
		if del.Status != "pending" || del.AttemptCount != 1 {
			t.Fatalf("delivery of b: %s after %d attempts, want pending for its retries", del.Status, del.AttemptCount)
		}
		if ep, _ := f.reg.Get(context.Background(), f.org.Org.ID, b.ID); ep.FailingSince != nil || !ep.Enabled {
			t.Fatalf("endpoint b counted as failing: %+v", ep)
		}
		// Without the key the dispatcher reads no encrypted secret either.
		rb.setAnswers()
		change(t, st, f.org, policy.Live, "b")
		drain(t, f.dispatcher(webhooks.Options{}))
		if n := len(ra.requests()); n != 1 {
			t.Fatalf("endpoint a got %d requests from a dispatcher without the key", n)
		}
	})
}

// fresh is an empty migrated database of backend b for this test alone, for
// what acts on every endpoint of a database.
func fresh(t *testing.T, b dbtest.Backend) *store.Store {
	t.Helper()
	u := dbtest.URL(t, b)
	if b == dbtest.Postgres {
		u = dbtest.Scratch(t, "secrets")
	}
	st, err := store.Open(context.Background(), u, store.Options{Snapshots: restapi.Snapshots{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := migrate.Apply(context.Background(), st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) }); err != nil {
		t.Fatal(err)
	}
	return st
}

// Key rotation: secrets stored in plain text before any key and under the old
// key still sign with the new key and the old one beside it; re-encryption
// moves every one to the new key, counting them, and changes nothing when
// repeated; then, the old key removed, every endpoint still gets verified
// deliveries.
func TestKeyRotationKeepsDelivering(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := fresh(t, b)
			f := setup(t, st)
			oldKey, newKey := newSecretKey(t), newSecretKey(t)
			rPlain, rOld := newReceiver(t), newReceiver(t)
			plain := f.endpoint(t, f.org, policy.Live, rPlain.URL) // before any key
			f.reg.Keys = keyring(t, oldKey, "")
			old := f.endpoint(t, f.org, policy.Live, rOld.URL)
			rotated, err := f.reg.RotateSecret(context.Background(), f.org.Org.ID, old.ID, 48*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if s := stored(t, st, plain.ID)["secret"]; s != plain.Secret {
				t.Fatalf("without a key the secret is stored as %q", s)
			}

			during := keyring(t, newKey, oldKey)
			change(t, st, f.org, policy.Live, "during")
			drain(t, f.dispatcher(webhooks.Options{Keys: during}))
			if got := rPlain.requests(); len(got) != 1 || !verified(t, got[0], plain.Secret) {
				t.Fatal("a plain-text secret does not sign under a key")
			}
			if got := rOld.requests(); len(got) != 1 || !verified(t, got[0], old.Secret) || !verified(t, got[0], rotated.Secret) {
				t.Fatal("secrets under the old key do not sign beside the new one")
			}

			res, err := webhooks.ReencryptSecrets(context.Background(), st, during)
			if err != nil {
				t.Fatal(err)
			}
			if want := (webhooks.Reencryption{Endpoints: 2, Reencrypted: 2, FromPlainText: 1, Unreadable: []int{}}); fmt.Sprint(res) != fmt.Sprint(want) {
				t.Fatalf("re-encryption %+v, want %+v", res, want)
			}
			again, err := webhooks.ReencryptSecrets(context.Background(), st, during)
			if want := (webhooks.Reencryption{Endpoints: 2, Unchanged: 2, Unreadable: []int{}}); err != nil || fmt.Sprint(again) != fmt.Sprint(want) {
				t.Fatalf("repeated re-encryption %+v (%v), want %+v", again, err, want)
			}

			after := keyring(t, newKey, "")
			for _, id := range []int{plain.ID, old.ID} {
				for col, v := range stored(t, st, id) {
					if !after.Current(v) {
						t.Fatalf("endpoint %d %s is not under the new key: %q", id, col, v)
					}
				}
			}
			change(t, st, f.org, policy.Live, "after")
			drain(t, f.dispatcher(webhooks.Options{Keys: after}))
			if got := rPlain.requests(); len(got) != 2 || !verified(t, got[1], plain.Secret) {
				t.Fatal("after the old key is removed, the once-plain secret does not sign")
			}
			if got := rOld.requests(); len(got) != 2 || !verified(t, got[1], old.Secret) || !verified(t, got[1], rotated.Secret) {
				t.Fatal("after the old key is removed, the re-encrypted secrets do not sign")
			}

			// Without a current key there is nothing to encrypt with.
			if _, err := webhooks.ReencryptSecrets(context.Background(), st, keyring(t, "", "")); err == nil {
				t.Fatal("re-encryption without a key")
			}
			// A secret no key opens is reported, and the others still move.
			other := keyring(t, newSecretKey(t), "")
			if res, err := webhooks.ReencryptSecrets(context.Background(), st, other); err == nil || fmt.Sprint(res.Unreadable) != fmt.Sprint([]int{plain.ID, old.ID}) {
				t.Fatalf("re-encryption with a key that opens nothing: %+v, %v", res, err)
			}
			res, err = webhooks.ReencryptSecrets(context.Background(), st, keyring(t, newSecretKey(t), newKey))
			if err != nil || res.Reencrypted != 2 {
				t.Fatalf("re-encryption to a third key: %+v, %v", res, err)
			}
		})
	}
}
