package reflist

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/csvcell"
)

// Read parses a file of the list's records: JSON Lines (one object per line,
// the API's field names; null or an omitted field is no value) or CSV (a
// header row of field names, which must include code; an empty cell is no
// value). Syntax problems are collected per line beside the records that
// parsed, so that an import reports everything at once.
func (l *List) Read(r io.Reader, f catalog.Format) ([]Line, []catalog.LineError) {
	if f == catalog.CSV {
		return l.readCSV(r)
	}
	return l.readJSONLines(r)
}

func (l *List) unknown(line int, name string) catalog.LineError {
	return catalog.LineError{Line: line, Field: name, Msg: "unknown field; " + l.Name + " has " + strings.Join(l.Columns(), ", ")}
}

func (l *List) readJSONLines(r io.Reader) ([]Line, []catalog.LineError) {
	var out []Line
	var errs []catalog.LineError
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			errs = append(errs, catalog.LineError{Line: n, Msg: "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")})
			continue
		}
		rec, bad := Record{}, false
		for name, raw := range obj {
			col, ok := l.column(name)
			if !ok {
				errs, bad = append(errs, l.unknown(n, name)), true
				continue
			}
			v, msg := jsonValue(col, raw)
			if msg != "" {
				errs, bad = append(errs, catalog.LineError{Line: n, Field: name, Msg: msg}), true
				continue
			}
			rec[name] = v
		}
		if !bad {
			out = append(out, Line{N: n, R: rec})
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, catalog.LineError{Line: n + 1, Msg: err.Error()})
	}
	return out, errs
}

// jsonValue reads one field: a string, a boolean for flags, a number for
// percentages (kept as written, checked later), or null.
func jsonValue(col column, raw json.RawMessage) (*string, string) {
	if string(raw) == "null" {
		return nil, ""
	}
	switch col.kind {
	case flag:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, "must be true or false"
		}
		s := fmt.Sprint(b)
		return &s, ""
	case percent:
		var n json.Number
		if raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return nil, "must be a number"
		}
		s := n.String()
		return &s, ""
	default:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, "must be a string"
		}
		return &s, ""
	}
}

func (l *List) readCSV(r io.Reader) ([]Line, []catalog.LineError) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, []catalog.LineError{{Line: 1, Msg: "no header row: " + err.Error()}}
	}
	var errs []catalog.LineError
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		switch _, ok := l.column(h); {
		case !ok:
			errs = append(errs, l.unknown(1, h))
		case seen[h]:
			errs = append(errs, catalog.LineError{Line: 1, Field: h, Msg: "column given twice"})
		}
		seen[h], cols[i] = true, h
	}
	if !seen["code"] {
		errs = append(errs, catalog.LineError{Line: 1, Msg: "the code column is required"})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var out []Line
	for {
		cells, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				errs = append(errs, catalog.LineError{Line: pe.Line, Msg: pe.Err.Error()})
				continue
			}
			errs = append(errs, catalog.LineError{Msg: err.Error()})
			break
		}
		line, _ := cr.FieldPos(0)
		if len(cells) != len(cols) {
			errs = append(errs, catalog.LineError{Line: line, Msg: fmt.Sprintf("%d cells, the header has %d", len(cells), len(cols))})
			continue
		}
		rec := Record{}
		for i, name := range cols {
			if s := strings.TrimSpace(csvcell.Value(cells[i])); s != "" {
				col, _ := l.column(name)
				if col.kind == flag {
					s = strings.ToLower(s)
				}
				rec[name] = &s
			}
		}
		out = append(out, Line{N: line, R: rec})
	}
	return out, errs
}

// Write writes records in the import format: JSON Lines with the fields in
// column order, or CSV with a header row.
func (l *List) Write(w io.Writer, f catalog.Format, recs []Record) error {
	bw := bufio.NewWriter(w)
	if f == catalog.CSV {
		cw := csvcell.NewWriter(bw)
		if err := cw.Write(l.Columns()); err != nil {
			return err
		}
		for _, r := range recs {
			cells := make([]string, len(l.columns))
			for i, col := range l.columns {
				if v := r[col.name]; v != nil {
					cells[i] = *v
				}
			}
			if err := cw.Write(cells); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return bw.Flush()
	}
	for _, r := range recs {
		bw.WriteByte('{')
		for i, col := range l.columns {
			if i > 0 {
				bw.WriteByte(',')
			}
			name, _ := json.Marshal(col.name)
			bw.Write(name)
			bw.WriteByte(':')
			v := r[col.name]
			switch {
			case v == nil:
				bw.WriteString("null")
			case col.kind == flag || col.kind == percent:
				bw.WriteString(*v)
			default:
				s, _ := json.Marshal(*v)
				bw.Write(s)
			}
		}
		bw.WriteString("}\n")
	}
	return bw.Flush()
}
