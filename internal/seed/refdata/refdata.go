// Package refdata holds the shared reference data Larder ships as embedded
// UTF-8 CSV files (each with a header row): countries, nutrients, storage and
// preservation methods, units for quality-control checkpoints, and the
// composition of common bakery and snack ingredients.
//
// Each accessor parses its files once and returns a fresh copy of the rows,
// or an error if the embedded data is malformed; it never panics.
//
// Sources:
//
//   - countries.csv: the 249 officially assigned alpha-2 codes of ISO 3166-1
//     (ISO 3166 Maintenance Agency). English short names and their French
//     translations are those of the Debian iso-codes project (release 4.15.0,
//     iso_3166-1.json and its fr translation), with the United States given its
//     full short name ("United States of America", "États-Unis d'Amérique") and
//     a few French names normalized to the ISO French short names (for example
//     "Turquie", "Macao", "El Salvador", "Îles Cook").
//   - nutrients.csv: keys are FAO/INFOODS component tagnames; names follow the
//     nutrient names of the USDA National Nutrient Database for Standard
//     Reference (FoodData Central SR Legacy); labels are the English wording of
//     the Canadian Nutrition Facts table (Food and Drug Regulations, C.R.C.,
//     c. 870, sections B.01.401 and B.01.402, and Health Canada's Directory
//     of Nutrition Facts Table Formats). The table never names water, ash,
//     alcohol or energy in kilojoules; for those, label is a plain display
//     label. Major marks the 13 core nutrients of the table (Calories, Fat,
//     Saturated, Trans, Carbohydrate, Fibre, Sugars, Protein, Cholesterol,
//     Sodium, Potassium, Calcium, Iron). No food here has values for total
//     omega-6 or omega-3 fatty acids, soluble or insoluble fibre, sugar
//     alcohols, biotin, iodide, chromium, molybdenum or chloride, which SR
//     Legacy does not publish.
//   - foods.csv and food_nutrients.csv: USDA Agricultural Research Service,
//     FoodData Central, SR Legacy (April 2018), public domain. Values were
//     transcribed from the data files of Standard Reference Release 28, which
//     SR Legacy republishes; each food's Source names its NDB number, and
//     Nutrients lists only the values that entry publishes (an absent row means
//     "not analysed", not zero). YieldPct is 100 minus the entry's published
//     refuse percentage where it has one.
//   - preservations.csv and qc_units.csv: Larder's own lists. Temperatures
//     follow common Canadian food-safety guidance (Health Canada and the
//     Canadian Food Inspection Agency): refrigerate at 4 °C or colder, freeze at
//     −18 °C or colder, hold hot food at 60 °C or above.
package refdata

import (
	"embed"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed countries.csv nutrients.csv preservations.csv qc_units.csv foods.csv food_nutrients.csv
var files embed.FS

// Country is an ISO 3166-1 country: its alpha-2 code and its English and
// French short names.
type Country struct{ Code, Name, NameFr string }

// Nutrient is a food component. Key is its INFOODS tagname (ENERC_KCAL, FAT,
// FASAT, ...), Name its food-composition name, Label its wording on the
// Canadian Nutrition Facts table, Unit one of kcal, kJ, g, mg or µg, and Major
// is true for the 13 core nutrients of that table.
type Nutrient struct {
	Key, Name, Label, Unit string
	Major                  bool
}

// Preservation is a storage or preservation method; Description gives its
// temperature range.
type Preservation struct{ Code, Name, Description string }

// QCUnit is a unit of measure for quality-control checkpoints.
type QCUnit struct{ Code, Name string }

// FoodNutrient is the amount of one nutrient (Nutrient is a Nutrient.Key) in
// 100 g of the edible portion of a food, in that nutrient's Unit.
type FoodNutrient struct {
	Nutrient string
	Value    float64
}

// Food is a common ingredient with its composition. Source names the food
// composition table and the entry the values come from. YieldPct, when not
// nil, is the edible portion as a percentage of the food as purchased in the
// form YieldDescription names.
type Food struct {
	Key, Name, NameFr, Source, YieldDescription string
	YieldPct                                    *float64
	Nutrients                                   []FoodNutrient
}

var (
	countries     = sync.OnceValues(loadCountries)
	nutrients     = sync.OnceValues(loadNutrients)
	preservations = sync.OnceValues(loadPreservations)
	qcUnits       = sync.OnceValues(loadQCUnits)
	foods         = sync.OnceValues(loadFoods)
)

// Countries returns the 249 ISO 3166-1 countries, ordered by code.
func Countries() ([]Country, error) {
	c, err := countries()
	if err != nil {
		return nil, err
	}
	return slices.Clone(c), nil
}

// Nutrients returns the nutrients, ordered for display: energy, the
// macronutrients as the Nutrition Facts table lists them, vitamins and
// minerals, then water, ash and alcohol.
func Nutrients() ([]Nutrient, error) {
	n, err := nutrients()
	if err != nil {
		return nil, err
	}
	return slices.Clone(n), nil
}

// Preservations returns the storage and preservation methods.
func Preservations() ([]Preservation, error) {
	p, err := preservations()
	if err != nil {
		return nil, err
	}
	return slices.Clone(p), nil
}

// QCUnits returns the units for quality-control checkpoints.
func QCUnits() ([]QCUnit, error) {
	u, err := qcUnits()
	if err != nil {
		return nil, err
	}
	return slices.Clone(u), nil
}

// Foods returns the ingredients with their nutrient values.
func Foods() ([]Food, error) {
	fs, err := foods()
	if err != nil {
		return nil, err
	}
	out := make([]Food, len(fs))
	for i, f := range fs {
		if f.YieldPct != nil {
			y := *f.YieldPct
			f.YieldPct = &y
		}
		f.Nutrients = slices.Clone(f.Nutrients)
		out[i] = f
	}
	return out, nil
}

// table is the data rows of one embedded CSV file.
type table struct {
	name string
	rows [][]string
}

// errorf reports a problem with data row i (0-based) of the table.
func (t table) errorf(i int, format string, args ...any) error {
	return fmt.Errorf("refdata: %s line %d: %s", t.name, i+2, fmt.Sprintf(format, args...))
}

// readCSV reads an embedded CSV file, checks that its header is exactly
// header, that every field is valid UTF-8 without surrounding spaces, and that
// the first `required` columns are not empty.
func readCSV(name string, required int, header ...string) (table, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return table{name: name}, fmt.Errorf("refdata: %w", err)
	}
	return parseCSV(name, b, required, header...)
}

// parseCSV is readCSV on the contents b of the file name.
func parseCSV(name string, b []byte, required int, header ...string) (table, error) {
	t := table{name: name}
	if !utf8.Valid(b) {
		return t, fmt.Errorf("refdata: %s is not valid UTF-8", name)
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = len(header)
	rows, err := r.ReadAll()
	if err != nil {
		return t, fmt.Errorf("refdata: %s: %w", name, err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], header) {
		return t, fmt.Errorf("refdata: %s: header must be %q", name, strings.Join(header, ","))
	}
	t.rows = rows[1:]
	for i, row := range t.rows {
		for j, field := range row {
			if strings.TrimSpace(field) != field {
				return t, t.errorf(i, "%s has surrounding spaces", header[j])
			}
			if j < required && field == "" {
				return t, t.errorf(i, "%s is empty", header[j])
			}
		}
	}
	return t, nil
}

// unique reports the first row whose value in column col repeats an earlier one.
func (t table) unique(col int, what string) error {
	seen := make(map[string]bool, len(t.rows))
	for i, row := range t.rows {
		if seen[row[col]] {
			return t.errorf(i, "duplicate %s %q", what, row[col])
		}
		seen[row[col]] = true
	}
	return nil
}

func loadCountries() ([]Country, error) {
	t, err := readCSV("countries.csv", 3, "code", "name", "name_fr")
	if err != nil {
		return nil, err
	}
	if err := t.unique(0, "code"); err != nil {
		return nil, err
	}
	out := make([]Country, len(t.rows))
	for i, r := range t.rows {
		if len(r[0]) != 2 || r[0][0] < 'A' || r[0][0] > 'Z' || r[0][1] < 'A' || r[0][1] > 'Z' {
			return nil, t.errorf(i, "code %q is not two upper-case letters", r[0])
		}
		out[i] = Country{Code: r[0], Name: r[1], NameFr: r[2]}
	}
	return out, nil
}

func loadNutrients() ([]Nutrient, error) {
	t, err := readCSV("nutrients.csv", 5, "key", "name", "label", "unit", "major")
	if err != nil {
		return nil, err
	}
	if err := t.unique(0, "key"); err != nil {
		return nil, err
	}
	if err := t.unique(1, "name"); err != nil {
		return nil, err
	}
	out := make([]Nutrient, len(t.rows))
	for i, r := range t.rows {
		switch r[3] {
		case "kcal", "kJ", "g", "mg", "µg":
		default:
			return nil, t.errorf(i, "unit %q is not kcal, kJ, g, mg or µg", r[3])
		}
		major, err := strconv.ParseBool(r[4])
		if err != nil {
			return nil, t.errorf(i, "major: %v", err)
		}
		out[i] = Nutrient{Key: r[0], Name: r[1], Label: r[2], Unit: r[3], Major: major}
	}
	return out, nil
}

func loadPreservations() ([]Preservation, error) {
	t, err := readCSV("preservations.csv", 3, "code", "name", "description")
	if err != nil {
		return nil, err
	}
	if err := t.unique(0, "code"); err != nil {
		return nil, err
	}
	out := make([]Preservation, len(t.rows))
	for i, r := range t.rows {
		out[i] = Preservation{Code: r[0], Name: r[1], Description: r[2]}
	}
	return out, nil
}

func loadQCUnits() ([]QCUnit, error) {
	t, err := readCSV("qc_units.csv", 2, "code", "name")
	if err != nil {
		return nil, err
	}
	if err := t.unique(0, "code"); err != nil {
		return nil, err
	}
	out := make([]QCUnit, len(t.rows))
	for i, r := range t.rows {
		out[i] = QCUnit{Code: r[0], Name: r[1]}
	}
	return out, nil
}

func loadFoods() ([]Food, error) {
	t, err := readCSV("foods.csv", 4, "key", "name", "name_fr", "source", "yield_description", "yield_pct")
	if err != nil {
		return nil, err
	}
	if err := t.unique(0, "key"); err != nil {
		return nil, err
	}
	out := make([]Food, len(t.rows))
	index := make(map[string]int, len(t.rows))
	for i, r := range t.rows {
		f := Food{Key: r[0], Name: r[1], NameFr: r[2], Source: r[3], YieldDescription: r[4]}
		if r[5] != "" {
			y, err := strconv.ParseFloat(r[5], 64)
			if err != nil || !(y > 0 && y <= 100) {
				return nil, t.errorf(i, "yield_pct %q is not a percentage in (0, 100]", r[5])
			}
			f.YieldPct = &y
		}
		out[i] = f
		index[f.Key] = i
	}

	ns, err := nutrients()
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(ns))
	for _, n := range ns {
		known[n.Key] = true
	}

	v, err := readCSV("food_nutrients.csv", 3, "food_key", "nutrient_key", "value")
	if err != nil {
		return nil, err
	}
	type pair struct{ food, nutrient string }
	seen := make(map[pair]bool, len(v.rows))
	for i, r := range v.rows {
		fi, ok := index[r[0]]
		if !ok {
			return nil, v.errorf(i, "unknown food %q", r[0])
		}
		if !known[r[1]] {
			return nil, v.errorf(i, "unknown nutrient %q", r[1])
		}
		p := pair{r[0], r[1]}
		if seen[p] {
			return nil, v.errorf(i, "duplicate value of %s for %s", r[1], r[0])
		}
		seen[p] = true
		x, err := strconv.ParseFloat(r[2], 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, v.errorf(i, "value %q is not a non-negative number", r[2])
		}
		out[fi].Nutrients = append(out[fi].Nutrients, FoodNutrient{Nutrient: r[1], Value: x})
	}
	return out, nil
}
