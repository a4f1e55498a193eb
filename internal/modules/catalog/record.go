// Package catalog holds the catalog workflows the web application (the CLI)
// performs and the API does not: importing, exporting and deleting products.
package catalog

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"larder.dev/larder/internal/platform/csvcell"
)

// Record is one product in an import or export file. References are by code
// or name, never by id, so a file moves between accounts (test to live): units
// by code, tags by name (PRODUCT tags), allergens by code or name, the food by
// name, countries by ISO code, products by product_code, suppliers by
// supplier_code and QC checkpoints by code. A record is the whole product: an
// absent value is null (or an empty list) after the import.
type Record struct {
	ProductCode       string        `json:"product_code"`
	Name              *string       `json:"name"`
	Description       *string       `json:"description"`
	ProductType       string        `json:"product_type"`
	Active            *bool         `json:"active"`
	ShelfLife         *int          `json:"shelf_life"`
	Cost              *json.Number  `json:"cost"`
	OperationsCost    *json.Number  `json:"operations_cost"`
	UnitOfMeasure     *string       `json:"unit_of_measure"`
	UomBase           *string       `json:"uom_base"`
	UomQty            *float64      `json:"uom_qty"`
	UomBaseConversion *float64      `json:"uom_base_conversion"`
	Tags              []string      `json:"tags"`
	Allergens         []AllergenRef `json:"allergens"`
	Food              *string       `json:"food"`
	BannedCountries   []string      `json:"banned_countries"`
	Substitutes       []string      `json:"substitutes"`
	Suppliers         []string      `json:"suppliers"`
	IngredientsEn     *string       `json:"ingredients_en"`
	IngredientsFr     *string       `json:"ingredients_fr"`
	PortionInGrams    *float64      `json:"portion_in_grams"`
	RecipeGramsYield  *float64      `json:"recipe_grams_yield"`
	QCCheckpoints     []string      `json:"qc_checkpoints"`
	Byproducts        []string      `json:"byproducts"`
	// Routing is a recipe's operations in order, each an operation code, or
	// OPERATION@EQUIPMENT for one that runs on a piece of equipment.
	Routing []string `json:"routing"`
}

// AllergenRef is an allergen of a product: the allergen's code (or name) and
// where it comes from ("declared" when omitted).
type AllergenRef struct {
	Allergen string `json:"allergen"`
	Source   string `json:"source,omitempty"`
}

// Format is a file format of import and export.
type Format string

// The formats: JSON Lines (one Record object per line) and CSV (a header row
// naming the columns, lists joined with "|", allergens as CODE:source).
const (
	JSONLines Format = "jsonl"
	CSV       Format = "csv"
)

// ParseFormat reads a format name; "" picks one from the file name.
func ParseFormat(name, file string) (Format, error) {
	switch strings.ToLower(name) {
	case "jsonl", "ndjson", "json":
		return JSONLines, nil
	case "csv":
		return CSV, nil
	case "":
		if strings.HasSuffix(strings.ToLower(file), ".csv") {
			return CSV, nil
		}
		return JSONLines, nil
	}
	return "", fmt.Errorf("unknown format %q: use jsonl or csv", name)
}

// ColumnSpec describes one column of an import file as the import reads it:
// whether a record must give it, how it is written, and an example value.
// The column references and templates people download are made from these.
type ColumnSpec struct {
	Name     string
	Required bool
	Format   string
	Example  string
}

// ColumnSpecs are the product file's columns, in export order: the columns
// Read accepts (Columns) and what the import checks of each.
var ColumnSpecs = []ColumnSpec{
	{"product_code", true, fmt.Sprintf("text, at most %d characters; finds the product to update, or creates it", maxCode), "FLOUR-T55"},
	{"name", false, fmt.Sprintf("text, at most %d characters", maxName), "Wheat flour T55"},
	{"description", false, fmt.Sprintf("text, at most %d characters", maxDescription), "Type 55 flour for bread and pastry"},
	{"product_type", true, "one of RAW_MATERIAL, PACKAGING, MISCELLANEOUS, RECIPE, SUB_RECIPE, FINISHED_GOOD", "RAW_MATERIAL"},
	{"active", false, "true or false", "true"},
	{"shelf_life", false, "whole days, 0 or more", "180"},
	{"cost", false, "decimal amount in the organization's currency", "0.85"},
	{"operations_cost", false, "decimal amount in the organization's currency", "0.10"},
	{"unit_of_measure", false, "a unit's code", "kg"},
	{"uom_base", false, "a unit's code", "g"},
	{"uom_qty", false, "number", "1"},
	{"uom_base_conversion", false, "number", "1000"},
	{"tags", false, "PRODUCT tag names joined with |", "organic|bakery"},
	{"allergens", false, "allergen codes or names joined with |, each CODE or CODE:source (declared when omitted)", "GLUTEN:declared"},
	{"food", false, "a food's name (materials only)", ""},
	{"banned_countries", false, "ISO country codes joined with | (materials only)", "US|CA"},
	{"substitutes", false, "product codes joined with | (materials only)", ""},
	{"suppliers", false, "supplier codes joined with | (materials only)", ""},
	{"ingredients_en", false, fmt.Sprintf("text, at most %d characters (recipes only)", maxIngredients), ""},
	{"ingredients_fr", false, fmt.Sprintf("text, at most %d characters (recipes only)", maxIngredients), ""},
	{"portion_in_grams", false, "number (recipes only)", ""},
	{"recipe_grams_yield", false, "number (recipes only)", ""},
	{"qc_checkpoints", false, "QC checkpoint codes joined with | (recipes only)", ""},
	{"byproducts", false, "product codes joined with | (recipes only)", ""},
	{"routing", false, "operation codes in order joined with |, each OPERATION or OPERATION@EQUIPMENT (recipes only)", ""},
}

// Columns are the CSV columns, in export order.
var Columns = func() []string {
	out := make([]string, len(ColumnSpecs))
	for i, c := range ColumnSpecs {
		out[i] = c.Name
	}
	return out
}()

// LineError is a problem with one line of a file.
type LineError struct {
	Line  int    `json:"line"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"message"`
}

func (e LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Msg)
}

// FileError lists every problem found in a file; nothing was imported.
type FileError struct{ Problems []LineError }

func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s); nothing was imported", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Line is a parsed record and the line it starts on.
type Line struct {
	N int
	R Record
}

// Read parses a whole file. Problems of syntax are collected per line; the
// records that parsed are returned beside them so validation can report
// everything at once.
func Read(r io.Reader, f Format) ([]Line, []LineError) {
	if f == CSV {
		return readCSV(r)
	}
	return readJSONLines(r)
}

func readJSONLines(r io.Reader) ([]Line, []LineError) {
	var out []Line
	var errs []LineError
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var rec Record
		if err := dec.Decode(&rec); err != nil {
			errs = append(errs, LineError{Line: n, Msg: "not a product object: " + jsonProblem(err)})
			continue
		}
		if dec.More() {
			errs = append(errs, LineError{Line: n, Msg: "more than one JSON value on the line"})
			continue
		}
		out = append(out, Line{N: n, R: rec})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, LineError{Line: n + 1, Msg: err.Error()})
	}
	return out, errs
}

// jsonProblem words a decoding error without Go type names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s has the wrong type (%s)", te.Field, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func readCSV(r io.Reader) ([]Line, []LineError) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, []LineError{{Line: 1, Msg: "no header row: " + err.Error()}}
	}
	col := map[string]int{}
	var errs []LineError
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if !contains(Columns, h) {
			errs = append(errs, LineError{Line: 1, Field: h, Msg: "unknown column; columns are " + strings.Join(Columns, ", ")})
		}
		col[h] = i
	}
	if _, ok := col["product_code"]; !ok {
		errs = append(errs, LineError{Line: 1, Msg: "the product_code column is required"})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var out []Line
	for {
		line, _ := cr.FieldPos(0)
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				errs = append(errs, LineError{Line: pe.Line, Msg: pe.Err.Error()})
				continue
			}
			errs = append(errs, LineError{Line: line, Msg: err.Error()})
			break
		}
		line, _ = cr.FieldPos(0)
		if len(row) != len(header) {
			errs = append(errs, LineError{Line: line, Msg: fmt.Sprintf("%d cells, the header has %d", len(row), len(header))})
			continue
		}
		rec, perrs := fromCells(row, col, line)
		errs = append(errs, perrs...)
		if len(perrs) == 0 {
			out = append(out, Line{N: line, R: rec})
		}
	}
	return out, errs
}

// fromCells reads one CSV row. An empty cell is null.
func fromCells(row []string, col map[string]int, line int) (Record, []LineError) {
	var rec Record
	var errs []LineError
	cell := func(name string) string {
		if i, ok := col[name]; ok {
			return strings.TrimSpace(csvcell.Value(row[i]))
		}
		return ""
	}
	str := func(name string) *string {
		if v := cell(name); v != "" {
			return &v
		}
		return nil
	}
	list := func(name string) []string {
		v := cell(name)
		if v == "" {
			return nil
		}
		var out []string
		for _, p := range strings.Split(v, "|") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	float := func(name string) *float64 {
		v := cell(name)
		if v == "" {
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs = append(errs, LineError{Line: line, Field: name, Msg: fmt.Sprintf("%q is not a number", v)})
			return nil
		}
		return &f
	}
	number := func(name string) *json.Number {
		v := cell(name)
		if v == "" {
			return nil
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			errs = append(errs, LineError{Line: line, Field: name, Msg: fmt.Sprintf("%q is not a number", v)})
			return nil
		}
		n := json.Number(v)
		return &n
	}
	rec.ProductCode = cell("product_code")
	rec.Name = str("name")
	rec.Description = str("description")
	rec.ProductType = cell("product_type")
	if v := cell("active"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, LineError{Line: line, Field: "active", Msg: fmt.Sprintf("%q is not true or false", v)})
		}
		rec.Active = &b
	}
	if v := cell("shelf_life"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, LineError{Line: line, Field: "shelf_life", Msg: fmt.Sprintf("%q is not a whole number of days", v)})
		}
		rec.ShelfLife = &n
	}
	rec.Cost = number("cost")
	rec.OperationsCost = number("operations_cost")
	rec.UnitOfMeasure = str("unit_of_measure")
	rec.UomBase = str("uom_base")
	rec.UomQty = float("uom_qty")
	rec.UomBaseConversion = float("uom_base_conversion")
	rec.Tags = list("tags")
	for _, a := range list("allergens") {
		code, source, _ := strings.Cut(a, ":")
		rec.Allergens = append(rec.Allergens, AllergenRef{Allergen: strings.TrimSpace(code), Source: strings.TrimSpace(source)})
	}
	rec.Food = str("food")
	rec.BannedCountries = list("banned_countries")
	rec.Substitutes = list("substitutes")
	rec.Suppliers = list("suppliers")
	rec.IngredientsEn = str("ingredients_en")
	rec.IngredientsFr = str("ingredients_fr")
	rec.PortionInGrams = float("portion_in_grams")
	rec.RecipeGramsYield = float("recipe_grams_yield")
	rec.QCCheckpoints = list("qc_checkpoints")
	rec.Byproducts = list("byproducts")
	rec.Routing = list("routing")
	return rec, errs
}

// Writer writes records in a format.
type Writer struct {
	f   Format
	w   io.Writer
	csv *csvcell.Writer
	enc *json.Encoder
}

// NewWriter starts a file (the CSV header is written at once).
func NewWriter(w io.Writer, f Format) (*Writer, error) {
	out := &Writer{f: f, w: w}
	if f == CSV {
		out.csv = csvcell.NewWriter(w)
		if err := out.csv.Write(Columns); err != nil {
			return nil, err
		}
	} else {
		out.enc = json.NewEncoder(w)
		out.enc.SetEscapeHTML(false)
	}
	return out, nil
}

// Write writes one record.
func (w *Writer) Write(r Record) error {
	if w.f != CSV {
		return w.enc.Encode(r)
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	fl := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	num := func(p *json.Number) string {
		if p == nil {
			return ""
		}
		return p.String()
	}
	active, shelf := "", ""
	if r.Active != nil {
		active = strconv.FormatBool(*r.Active)
	}
	if r.ShelfLife != nil {
		shelf = strconv.Itoa(*r.ShelfLife)
	}
	allergens := make([]string, len(r.Allergens))
	for i, a := range r.Allergens {
		allergens[i] = a.Allergen
		if a.Source != "" {
			allergens[i] += ":" + a.Source
		}
	}
	return w.csv.Write([]string{
		r.ProductCode, s(r.Name), s(r.Description), r.ProductType, active, shelf,
		num(r.Cost), num(r.OperationsCost), s(r.UnitOfMeasure), s(r.UomBase), fl(r.UomQty), fl(r.UomBaseConversion),
		strings.Join(r.Tags, "|"), strings.Join(allergens, "|"), s(r.Food), strings.Join(r.BannedCountries, "|"),
		strings.Join(r.Substitutes, "|"), strings.Join(r.Suppliers, "|"),
		s(r.IngredientsEn), s(r.IngredientsFr), fl(r.PortionInGrams), fl(r.RecipeGramsYield),
		strings.Join(r.QCCheckpoints, "|"), strings.Join(r.Byproducts, "|"),
		strings.Join(r.Routing, "|"),
	})
}

// Flush finishes the file.
func (w *Writer) Flush() error {
	if w.csv != nil {
		w.csv.Flush()
		return w.csv.Error()
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
