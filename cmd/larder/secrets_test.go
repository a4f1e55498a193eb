package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/testkit/dbtest"
)

func secretKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// storedSecret is an endpoint's secret column as the database holds it.
func storedSecret(t *testing.T, db, id string) string {
	t.Helper()
	st := dbtest.OpenURL(t, db)
	var s string
	if err := st.DB.QueryRow("SELECT secret FROM webhook_endpoints WHERE id = " + id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// secondFactor invites a person into org, has them set a password and a
// second factor (with the keys of the environment), and returns the person's
// id and the factor's secret.
func secondFactor(t *testing.T, db, org string) (id, secret string) {
	t.Helper()
	ctx := context.Background()
	st := dbtest.OpenURL(t, db)
	orgID, err := strconv.Atoi(org)
	if err != nil {
		t.Fatal(err)
	}
	svc := people.New(st.Client, people.Options{})
	p, _, err := svc.Invite(ctx, orgID, "totp-"+org+"@example.com", people.Viewer)
	if err != nil {
		t.Fatal(err)
	}
	enr, err := svc.BeginSecondFactor(ctx, orgID, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ConfirmSecondFactor(ctx, orgID, p.ID, people.Code(enr.Secret, time.Now())); err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(p.ID), enr.Secret
}

// storedTOTP is a person's second-factor column as the database holds it.
func storedTOTP(t *testing.T, db, id string) string {
	t.Helper()
	st := dbtest.OpenURL(t, db)
	var s string
	if err := st.DB.QueryRow("SELECT totp_secret FROM users WHERE id = " + id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// `larder secrets rotate` re-encrypts every webhook secret under
// LARDER_SECRET_KEY, and every person's second factor, plain-text ones
// included, counts what it did and
// changes nothing when repeated; the creator and the rotator of a secret are
// shown it in plain. Not parallel: it sets the environment.
func TestSecretsRotateCommand(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			if b == dbtest.Postgres {
				db = dbtest.Scratch(t, "secrets") // it acts on every endpoint of the database
			}
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			defer srv.Close()
			t.Setenv("LARDER_SECRET_KEY", "")
			t.Setenv("LARDER_SECRET_KEY_OLD", "")
			fails(t, db, "secrets rotate needs LARDER_SECRET_KEY", "secrets", "rotate")
			org := fmt.Sprint(int(cli(t, db, "org", "create", "--name", "Keys")["id"].(float64)))
			create := func() (id, secret string) {
				ep := cli(t, db, "webhook", "create", "--org", org, "--env", "live", "--url", srv.URL, "--webhook-allow-private")
				return fmt.Sprint(int(ep["id"].(float64))), ep["secret"].(string)
			}
			plainID, plainSecret := create()
			if s := storedSecret(t, db, plainID); s != plainSecret {
				t.Fatalf("without a key the secret is stored as %q", s)
			}

			oldKey, newKey := secretKey(t), secretKey(t)
			t.Setenv("LARDER_SECRET_KEY", oldKey)
			sealedID, sealedSecret := create()
			if !strings.HasPrefix(sealedSecret, "whsec_") {
				t.Fatalf("webhook create shows %q, not the plain secret", sealedSecret)
			}
			if s := storedSecret(t, db, sealedID); !strings.HasPrefix(s, "enc:v1:") || strings.Contains(s, sealedSecret[len("whsec_"):]) {
				t.Fatalf("with a key the secret is stored as %q", s)
			}
			// A person whose second factor was set up without a key.
			personID, totpSecret := secondFactor(t, db, org)
			counts := func(want, wantPeople string) {
				t.Helper()
				got := cli(t, db, "secrets", "rotate")
				if s := fmt.Sprintf("%v %v %v %v %v", got["endpoints"], got["reencrypted"], got["from_plain_text"], got["unchanged"], got["unreadable"]); s != want {
					t.Fatalf("secrets rotate: %v, want endpoints reencrypted from_plain_text unchanged unreadable = %s", got, want)
				}
				p := got["second_factors"].(map[string]any)
				if s := fmt.Sprintf("%v %v %v %v %v", p["people"], p["reencrypted"], p["from_plain_text"], p["unchanged"], p["unreadable"]); s != wantPeople {
					t.Fatalf("secrets rotate: %v, want people reencrypted from_plain_text unchanged unreadable = %s", p, wantPeople)
				}
			}
			counts("2 1 1 1 []", "1 1 1 0 []")
			if s := storedTOTP(t, db, personID); !strings.HasPrefix(s, "enc:v1:") || strings.Contains(s, totpSecret) {
				t.Fatalf("second factor stored as %q after secrets rotate", s)
			}
			counts("2 0 0 2 []", "1 0 0 1 []")

			t.Setenv("LARDER_SECRET_KEY", newKey)
			t.Setenv("LARDER_SECRET_KEY_OLD", oldKey)
			counts("2 2 0 0 []", "1 1 0 0 []")
			t.Setenv("LARDER_SECRET_KEY_OLD", "")
			counts("2 0 0 2 []", "1 0 0 1 []")
			rot := cli(t, db, "webhook", "rotate-secret", "--endpoint", sealedID, "--grace", "1h")
			if s, _ := rot["secret"].(string); !strings.HasPrefix(s, "whsec_") || s == sealedSecret {
				t.Fatalf("rotate-secret shows %v", rot["secret"])
			}

			// A key no secret was sealed with: reported, non-zero exit.
			t.Setenv("LARDER_SECRET_KEY", secretKey(t))
			var out, errb bytes.Buffer
			err := run(context.Background(), []string{"secrets", "rotate", "--database", db, "--json"}, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), "webhook endpoints "+plainID+", "+sealedID) || !strings.Contains(out.String(), `"unreadable": [`) ||
				!strings.Contains(err.Error(), "second factors of people "+personID+" decrypt with neither") {
				t.Fatalf("secrets rotate with a wrong key: %v\n%s", err, out.String())
			}

			// A bad key is a configuration error naming its variable.
			t.Setenv("LARDER_SECRET_KEY", base64.StdEncoding.EncodeToString([]byte("too short")))
			fails(t, db, "LARDER_SECRET_KEY: the key is 9 bytes, not 32", "webhook", "list", "--org", org)
			fails(t, db, "LARDER_SECRET_KEY: the key is 9 bytes, not 32", "secrets", "rotate")
			t.Setenv("LARDER_SECRET_KEY", "not base64!")
			fails(t, db, "LARDER_SECRET_KEY: the key is not base64", "serve")
		})
	}
}

// serve warns once at start, through its logger, when webhook secrets and
// second-factor secrets are stored in plain text; with a key it does not. Not parallel: it sets the
// environment.
func TestServeWarnsWithoutSecretKey(t *testing.T) {
	for _, key := range []string{"", secretKey(t)} {
		t.Setenv("LARDER_SECRET_KEY", key)
		db := dbtest.MigratedURL(t, dbtest.SQLite)
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		var errb syncBuffer
		done := make(chan error, 1)
		go func() {
			var out bytes.Buffer
			done <- run(ctx, []string{"serve", "--database", db, "--addr", addr, "--log-flush", "0"}, &out, &errb)
		}()
		answered := false
		for range 600 {
			if res, err := http.Get("http://" + addr + "/v1/openapi.json"); err == nil {
				res.Body.Close()
				answered = true
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		if err := <-done; !answered {
			t.Skipf("serve did not answer on %s (taken by another process meanwhile?): %v", addr, err)
		}
		n := strings.Count(errb.String(), "LARDER_SECRET_KEY is not set")
		warned := strings.Contains(errb.String(), "level=WARN msg=\"LARDER_SECRET_KEY is not set: webhook signing secrets and console second-factor (TOTP) secrets are stored in plain text")
		if key == "" && (n != 1 || !warned) || key != "" && n != 0 {
			t.Fatalf("key set %v: %d warnings:\n%s", key != "", n, errb.String())
		}
	}
}
