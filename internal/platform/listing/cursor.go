package listing

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"larder.dev/larder/internal/platform/problem"
)

// cursorVersion is the version of a cursor's content; a cursor of another
// version is refused like a garbled one.
const cursorVersion = 1

// MaxCursor bounds a cursor's length: a cursor carries a few sort values,
// none longer than a field may be.
const MaxCursor = 4096

// origin is what a cursor is bound to: the list, the sort as applied, the
// account and the filters it was issued for.
type origin struct {
	List    string `json:"l"`
	Sort    string `json:"s"`
	Account int    `json:"a"`
	Filters string `json:"f"`
}

// cursor is a cursor's content: base64url (unpadded) of its JSON. Position
// holds the last row's sort values, one per term, id last.
type cursor struct {
	Version int `json:"v"`
	origin
	Position []json.RawMessage `json:"k"`
}

// filterHash stands for the filters a cursor's walk was begun with, so that
// a cursor sent with other filters is refused instead of walking a
// different list from a position in this one.
func filterHash(filters string) string {
	sum := sha256.Sum256([]byte(filters))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// Filters renders the filters and search of a list request for its cursor:
// v is the request's parameters (plain values, no pointers) with the paging
// ones cleared.
func Filters(v any) string { return fmt.Sprintf("%+v", v) }

func encodeCursor(o origin, terms []term, last []any) (string, error) {
	if len(last) != len(terms) {
		return "", fmt.Errorf("listing: %d sort values for %d terms", len(last), len(terms))
	}
	c := cursor{Version: cursorVersion, origin: o, Position: make([]json.RawMessage, len(terms))}
	for i, t := range terms {
		v, err := encodeValue(t.sort.Kind, last[i])
		if err != nil {
			return "", fmt.Errorf("listing: sort value %d: %w", i, err)
		}
		c.Position[i] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// encodeValue renders a sort value as the driver returned it (PostgreSQL's
// lib/pq or SQLite's modernc driver) in the JSON of its kind, so that
// decodeValue gives the database back the very value it compared: times
// keep their offset and every digit of their fraction, decimals their text.
func encodeValue(k Kind, v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	var out any
	switch k {
	case Int:
		if n, ok := v.(int64); ok {
			out = n
		}
	case Text:
		if s, ok := v.(string); ok {
			out = s
		}
	case Time:
		if t, ok := v.(time.Time); ok {
			out = t.Format(time.RFC3339Nano)
		}
	case Bool:
		switch b := v.(type) {
		case bool:
			out = b
		case int64:
			out = b != 0
		}
	case Decimal:
		switch d := v.(type) {
		case string:
			out = d
		case int64:
			out = strconv.FormatInt(d, 10)
		case float64:
			out = strconv.FormatFloat(d, 'g', -1, 64)
		}
	case Float:
		switch f := v.(type) {
		case float64:
			out = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		case int64:
			out = f
		}
	}
	if out == nil {
		return nil, fmt.Errorf("unexpected %T for kind %d", v, k)
	}
	return json.Marshal(out)
}

var decimalText = regexp.MustCompile(`^-?[0-9]{1,40}(\.[0-9]{1,40})?([eE][-+]?[0-9]{1,3})?$`)

// decodeValue reads a sort value of kind k, strictly: anything the database
// could not compare with the sort's column is refused here.
func decodeValue(k Kind, raw json.RawMessage) (any, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	switch k {
	case Int:
		if n, ok := v.(json.Number); ok {
			i, err := strconv.ParseInt(string(n), 10, 64)
			return i, err == nil
		}
	case Text:
		if s, ok := v.(string); ok && utf8.ValidString(s) {
			return s, true
		}
	case Time:
		if s, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339Nano, s)
			return t, err == nil && t.Year() >= 1 && t.Year() <= 9999
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return b, true
		}
	case Decimal:
		if s, ok := v.(string); ok && decimalText.MatchString(s) {
			return s, true
		}
	case Float:
		if n, ok := v.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
		}
	}
	return nil, false
}

// decodeCursor reads a cursor given with a request whose page is bound to o
// and ordered by terms, and returns its position.
func decodeCursor(s string, o origin, terms []term) ([]any, error) {
	garbled := problem.Invalid("cursor", "is not a cursor this list issued; send next_cursor exactly as a page gave it")
	if len(s) > MaxCursor {
		return nil, garbled
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, garbled
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var c cursor
	if d.Decode(&c) != nil || d.More() || c.Version != cursorVersion {
		return nil, garbled
	}
	switch {
	case c.List != o.List:
		return nil, problem.Invalid("cursor", "was issued by another list")
	case c.Account != o.Account:
		return nil, problem.Invalid("cursor", "was issued to another account")
	case c.Sort != o.Sort:
		return nil, problem.Invalidf("cursor", "was issued for the order %s, not %s; send the sort the walk began with", c.Sort, o.Sort)
	case c.Filters != o.Filters:
		return nil, problem.Invalid("cursor", "was issued for other filters; send the filters and search the walk began with")
	case len(c.Position) != len(terms):
		return nil, garbled
	}
	after := make([]any, len(terms))
	for i, t := range terms {
		v, ok := decodeValue(t.sort.Kind, c.Position[i])
		if !ok || (v == nil && !t.sort.nullable) {
			return nil, garbled
		}
		after[i] = v
	}
	return after, nil
}
