package dbtest

import (
	"errors"
	"slices"
	"testing"
)

func TestBackendsFollowTheList(t *testing.T) {
	server := func() (string, error) { return "postgres://db/x", nil }
	none := func() (string, error) { return "", nil }
	broken := func() (string, error) { return "", errors.New("unreachable") }
	for _, c := range []struct {
		list string
		pg   func() (string, error)
		want []Backend
		fail bool
	}{
		{"", server, []Backend{SQLite, Postgres}, false},
		{"", none, []Backend{SQLite}, false},
		{"", broken, nil, true},
		{"postgres", server, []Backend{Postgres}, false},
		{"sqlite", server, []Backend{SQLite}, false},
		{"sqlite", broken, []Backend{SQLite}, false}, // the server is not even asked for
		{"sqlite, postgres", server, []Backend{SQLite, Postgres}, false},
		{"postgres", none, nil, true}, // asked for and not there: never a silent SQLite-only run
		{"mysql", server, nil, true},
	} {
		got, err := backends(c.list, c.pg)
		if (err != nil) != c.fail || !slices.Equal(got, c.want) {
			t.Errorf("backends(%q) = %v, %v; want %v (error: %v)", c.list, got, err, c.want, c.fail)
		}
	}
}
