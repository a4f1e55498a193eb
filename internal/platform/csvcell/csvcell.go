// Package csvcell writes the CSV files the server hands out (exports, lot
// traces) so that no cell becomes a formula when a spreadsheet opens the
// file, and reads such cells back in the files it imports.
//
// A cell beginning with =, +, -, @, a tab or a carriage return is one a
// spreadsheet may evaluate; it is written with a single quote before it
// ('=SUM(A1) stays text), unless it is a plain number (-1, -0.5), which no
// spreadsheet evaluates and which stays a number to sort by. So that an exported file imports to the same
// values, a cell made of quotes before such a character gains one more quote
// too, and reading takes exactly one quote off a cell of one or more quotes
// before such a character: "'-x" reads "-x", "”=x" reads "'=x", and "'Tis"
// stays as it is.
package csvcell

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
)

// triggers are the first characters a spreadsheet may read as a formula.
const triggers = "=+-@\t\r"

// risky reports whether s is zero or more quotes before a trigger.
func risky(s string) bool {
	rest := strings.TrimLeft(s, "'")
	return rest != "" && strings.ContainsRune(triggers, rune(rest[0]))
}

// number matches a plain decimal number.
var number = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// Neutral is s as a cell that no spreadsheet evaluates.
func Neutral(s string) string {
	if risky(s) && !number.MatchString(s) {
		return "'" + s
	}
	return s
}

// Value is the value a cell written by Neutral holds.
func Value(cell string) string {
	if strings.HasPrefix(cell, "'") && risky(cell) {
		return cell[1:]
	}
	return cell
}

// Writer is a csv.Writer whose every cell goes through Neutral.
type Writer struct{ w *csv.Writer }

// NewWriter writes CSV to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one row.
func (w *Writer) Write(row []string) error {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = Neutral(c)
	}
	return w.w.Write(out)
}

// Flush writes what is buffered; Error says whether anything failed.
func (w *Writer) Flush() { w.w.Flush() }

// Error is the error of an earlier Write or Flush.
func (w *Writer) Error() error { return w.w.Error() }
