// What the request log's pages show: their data types, and a request's
// bodies as shown (costs hidden from who may not read them).

package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/policy"
)

// requestsView is the request log page's own data.
type requestsView struct {
	Env                        string
	Statuses                   []struct{ Value, Label string }
	Codes, Methods, Operations []string
	Keys                       []keyChoice
	Rows                       []requestRow
	Filtered, Paged            bool
	Newest, Older              string
	// Retention is how long the log keeps a request, in words.
	Retention string
	// Charts are the environment's requests per hour and per day (on the
	// newest page only).
	Charts []barChart
}

// keyChoice is one key of the environment in the key filter.
type keyChoice struct {
	ID    int
	Label string
}

// requestRow is one request as the list shows it.
type requestRow struct {
	*ent.APIRequest
	Key, Duration, Link string
}

// keyLabels names the organization's keys of env: their name and display
// (key_live_…abcd), marked when they no longer work; the rows' actions are
// not read, so whoever acts does not matter.
func keyLabels(keys []auth.Listed, env policy.Environment, now time.Time) ([]keyChoice, map[int]string) {
	rows := keyRows(keys, now, auth.Holder)
	var choices []keyChoice
	labels := map[int]string{}
	for _, k := range keys {
		if k.Env != string(env) {
			continue
		}
		row := rows[k.ID]
		label := row.Display
		if row.Name != "" {
			label = row.Name + " (" + row.Display + ")"
		}
		if row.Badge == "bad" {
			label += ", " + strings.ToLower(row.Status)
		}
		choices = append(choices, keyChoice{ID: k.ID, Label: label})
		labels[k.ID] = label
	}
	return choices, labels
}

// keyLabel is the name of a request's key.
func keyLabel(labels map[int]string, id *int) string {
	if id == nil {
		return "—"
	}
	if l, ok := labels[*id]; ok {
		return l
	}
	return "key " + strconv.Itoa(*id)
}

// retention is a retention period in words: whole days as days, else hours.
func retention(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.FormatInt(n, 10) + " " + unit + "s"
	}
	if d%(24*time.Hour) == 0 {
		return plural(int64(d/(24*time.Hour)), "day")
	}
	return plural(int64((d+time.Hour-1)/time.Hour), "hour")
}

// inputTime is t as a datetime-local input holds it (to the second when it
// has seconds), "" for the zero time: the form shows, and its links carry,
// the time the list was narrowed by.
func inputTime(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Second() != 0:
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04")
}

// requestView is the page of one request.
type requestView struct {
	Env string
	*ent.APIRequest
	Key, Duration, StatusText string
	Request, Response         shownBody
	Events                    []requestEvent
	// SeesCosts is whether the person's role reads cost fields.
	SeesCosts bool
	// Back is the list of the request's environment.
	Back string
}

// requestEvent is an event the request emitted, linked to the events page
// filtered to its record and type.
type requestEvent struct {
	*ent.Event
	Link string
}

// duration is a request's duration in words: µs below a millisecond, ms
// below a second, s above.
func duration(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%d µs", us)
	case us < 1_000_000:
		return strconv.FormatFloat(float64(us)/1000, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(float64(us)/1_000_000, 'f', 2, 64) + " s"
}

// shownBody is a body as the request's page shows it.
type shownBody struct {
	// Kept is whether a body was kept (writes and answers of 400 and above).
	Kept bool
	// Text is the body: indented JSON, or the bytes as text.
	Text string
	// JSON is whether it is whole JSON; Cut whether it was cut at
	// reqlog.MaxBody; NotUTF8 whether bytes that are not UTF-8 were replaced.
	JSON, Cut, NotUTF8 bool
	// Hidden counts the cost fields whose values were replaced.
	Hidden int
	// Withheld is set when the body is not whole JSON and the person may
	// not see costs: its cost fields cannot be found, so it is not shown.
	Withheld bool
}

// hiddenCost replaces a cost field's value for people who may not see costs.
const hiddenCost = "hidden"

// costMembers are the names of the API's cost fields, from the generated
// schema table (the fields annotate.Cost marks; the API description says
// "Cost field" on each of them).
var costMembers = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range ent.Access {
		for _, name := range a.Costs {
			m[name] = true
		}
	}
	return m
}()

// showBody prepares a logged body: JSON indented (its cost fields hidden
// unless sees), anything else as text, unless it might hold a cost field
// the person may not see.
func showBody(b []byte, truncated, sees bool) shownBody {
	out := shownBody{Kept: len(b) > 0, Cut: truncated && len(b) >= reqlog.MaxBody}
	if !out.Kept {
		return out
	}
	if json.Valid(b) {
		src := b
		if !sees {
			hidden, n, err := hideCosts(b)
			if err != nil {
				out.Withheld = true
				return out
			}
			src, out.Hidden = hidden, n
		}
		var buf bytes.Buffer
		if json.Indent(&buf, src, "", "  ") == nil {
			out.JSON = true
			out.Text, out.NotUTF8 = printable(buf.String())
			return out
		}
	}
	if !sees {
		out.Withheld = true
		return out
	}
	out.Text, out.NotUTF8 = printable(string(b))
	return out
}

// printable makes text safe to show: bytes that are not UTF-8, and control
// characters other than tabs and line breaks, become U+FFFD. It reports
// whether anything was not UTF-8.
func printable(s string) (string, bool) {
	bad := !utf8.ValidString(s)
	if bad {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s), bad
}

// hideCosts rewrites the JSON value b with the value of every object member
// named as a cost field, at any depth, replaced by hiddenCost, keeping the
// members' order; it returns the rewritten value (compact) and how many
// values it replaced.
func hideCosts(b []byte) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	str := func(s string) error {
		if err := enc.Encode(s); err != nil {
			return err
		}
		out.Truncate(out.Len() - 1) // Encode ends with a newline
		return nil
	}
	// frame is an open object or array: its members so far, and, for an
	// object, whether the next token is a member's name.
	type frame struct {
		object, name bool
		n            int
	}
	var stack []*frame
	hidden := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) && len(stack) == 0 {
				return out.Bytes(), hidden, nil
			}
			return nil, 0, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 {
			top := stack[n-1]
			if top.object && top.name {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
				name, _ := tok.(string)
				if err := str(name); err != nil {
					return nil, 0, err
				}
				out.WriteByte(':')
				if costMembers[name] {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, 0, err
					}
					if err := str(hiddenCost); err != nil {
						return nil, 0, err
					}
					hidden++
					continue
				}
				top.name = false
				continue
			}
			if top.object {
				top.name = true
			} else {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			stack = append(stack, &frame{object: t == '{', name: t == '{'})
		case string:
			if err := str(t); err != nil {
				return nil, 0, err
			}
		case json.Number:
			out.WriteString(t.String())
		case bool:
			out.WriteString(strconv.FormatBool(t))
		case nil:
			out.WriteString("null")
		}
	}
}
