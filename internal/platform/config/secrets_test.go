package config

import (
	"encoding/base64"
	"flag"
	"io"
	"strings"
	"testing"
)

// The keys of encryption at rest come from the environment only (never a
// flag, which other users of the machine can read), for the commands that
// read or write webhook secrets; a bad key is a configuration error naming
// its variable, without echoing the key.
func TestSecretKeyFromEnvironment(t *testing.T) {
	good := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	short := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))
	cases := []struct {
		name, key, old, want string
	}{
		{"none", "", "", ""},
		{"good key", good, "", ""},
		{"good key and older key", good, good, ""},
		{"not base64", "%%not-base64%%", "", "LARDER_SECRET_KEY: the key is not base64"},
		{"not 32 bytes", short, "", "LARDER_SECRET_KEY: the key is 16 bytes, not 32"},
		{"bad older key", good, short, "LARDER_SECRET_KEY_OLD: the key is 16 bytes, not 32"},
		{"older key alone", "", good, "LARDER_SECRET_KEY_OLD is set without LARDER_SECRET_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LARDER_SECRET_KEY", tc.key)
			t.Setenv("LARDER_SECRET_KEY_OLD", tc.old)
			c := Defaults()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			if err := c.Bind(fs, Webhooks); err != nil {
				t.Fatal(err)
			}
			if fs.Lookup("secret-key") != nil || fs.Lookup("secret-key-old") != nil {
				t.Fatal("the key is a flag")
			}
			if err := fs.Parse(nil); err != nil {
				t.Fatal(err)
			}
			err := c.Validate()
			if tc.want == "" {
				k, kerr := c.Keyring()
				if err != nil || kerr != nil || k.Enabled() != (tc.key != "") {
					t.Fatalf("Validate: %v; Keyring: %v, enabled %v", err, kerr, k.Enabled())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			if tc.key != "" && strings.Contains(err.Error(), tc.key) || tc.old != "" && strings.Contains(err.Error(), tc.old) {
				t.Fatalf("the error shows the key: %v", err)
			}
		})
	}
	// Commands that never touch a secret do not read the key.
	t.Setenv("LARDER_SECRET_KEY", "%%not-base64%%")
	c := Defaults()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	if err := c.Bind(fs, Common, Admin); err != nil || c.Validate() != nil {
		t.Fatalf("a command without webhooks read the key: %v, %v", err, c.Validate())
	}
}
