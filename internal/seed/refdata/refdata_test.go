package refdata

import (
	"encoding/csv"
	"math"
	"regexp"
	"strings"
	"testing"
)

var (
	upperSnake = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	lowerSnake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	srSource   = regexp.MustCompile(`^USDA FoodData Central SR Legacy, NDB [0-9]{5}$`)
)

func TestLoadAll(t *testing.T) {
	if _, err := Countries(); err != nil {
		t.Error(err)
	}
	if _, err := Nutrients(); err != nil {
		t.Error(err)
	}
	if _, err := Preservations(); err != nil {
		t.Error(err)
	}
	if _, err := QCUnits(); err != nil {
		t.Error(err)
	}
	if _, err := Foods(); err != nil {
		t.Error(err)
	}
}

func TestFilesHaveNoBOM(t *testing.T) {
	names := []string{"countries.csv", "nutrients.csv", "preservations.csv", "qc_units.csv", "foods.csv", "food_nutrients.csv"}
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "\uFEFF") {
			t.Errorf("%s starts with a byte-order mark", name)
		}
		if strings.Contains(string(b), "\r") {
			t.Errorf("%s has CR line endings", name)
		}
	}
}

func TestCountries(t *testing.T) {
	cs, err := Countries()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 249 {
		t.Errorf("got %d countries, want 249", len(cs))
	}
	byCode := map[string]Country{}
	for _, c := range cs {
		if len(c.Code) != 2 || c.Code != strings.ToUpper(c.Code) || c.Code[0] < 'A' || c.Code[0] > 'Z' || c.Code[1] < 'A' || c.Code[1] > 'Z' {
			t.Errorf("code %q is not two upper-case letters", c.Code)
		}
		if _, dup := byCode[c.Code]; dup {
			t.Errorf("duplicate code %s", c.Code)
		}
		if c.Name == "" || c.NameFr == "" {
			t.Errorf("%s: empty name", c.Code)
		}
		byCode[c.Code] = c
	}
	want := []Country{
		{"CA", "Canada", "Canada"},
		{"US", "United States of America", "États-Unis d'Amérique"},
		{"DE", "Germany", "Allemagne"},
		{"KR", "Korea, Republic of", "Corée, République de"},
		{"FR", "France", "France"},
		{"MX", "Mexico", "Mexique"},
		{"GB", "United Kingdom", "Royaume-Uni"},
	}
	for _, w := range want {
		if got := byCode[w.Code]; got != w {
			t.Errorf("country %s = %+v, want %+v", w.Code, got, w)
		}
	}
}

// tableNutrients are the keys of every nutrient of the Canadian Nutrition
// Facts table, core and additional, plus energy in kJ, water and ash.
var tableNutrients = []string{
	"ENERC_KCAL", "ENERC_KJ", "FAT", "FASAT", "FATRN", "FAPU", "FAPUN6", "FAPUN3", "FAMS",
	"CHOLE", "CHOCDF", "FIBTG", "FIBSOL", "FIBINS", "SUGAR", "POLYL", "STARCH", "PROCNT",
	"NA", "K", "CA", "FE",
	"VITA_RAE", "VITD", "VITC", "TOCPHA", "VITK1", "THIA", "RIBF", "NIA", "VITB6A",
	"FOLDFE", "VITB12", "BIOT", "PANTAC", "CHOLN",
	"P", "ID", "MG", "ZN", "SE", "CU", "MN", "CR", "MO", "CLD",
	"WATER", "ASH",
}

var coreNutrients = map[string]string{
	"ENERC_KCAL": "Calories", "FAT": "Fat", "FASAT": "Saturated", "FATRN": "Trans",
	"CHOCDF": "Carbohydrate", "FIBTG": "Fibre", "SUGAR": "Sugars", "PROCNT": "Protein",
	"CHOLE": "Cholesterol", "NA": "Sodium", "K": "Potassium", "CA": "Calcium", "FE": "Iron",
}

func nutrientsByKey(t *testing.T) map[string]Nutrient {
	t.Helper()
	ns, err := Nutrients()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Nutrient{}
	for _, n := range ns {
		m[n.Key] = n
	}
	return m
}

func TestNutrients(t *testing.T) {
	ns, err := Nutrients()
	if err != nil {
		t.Fatal(err)
	}
	keys, names := map[string]bool{}, map[string]bool{}
	major := 0
	for _, n := range ns {
		if !upperSnake.MatchString(n.Key) {
			t.Errorf("key %q is not an upper-case tagname", n.Key)
		}
		if keys[n.Key] {
			t.Errorf("duplicate key %s", n.Key)
		}
		if names[n.Name] {
			t.Errorf("duplicate name %q", n.Name)
		}
		keys[n.Key], names[n.Name] = true, true
		if n.Name == "" || n.Label == "" {
			t.Errorf("%s: empty name or label", n.Key)
		}
		switch n.Unit {
		case "kcal", "kJ", "g", "mg", "µg":
		default:
			t.Errorf("%s: unit %q", n.Key, n.Unit)
		}
		if label, ok := coreNutrients[n.Key]; ok != n.Major {
			t.Errorf("%s: major = %v, want %v", n.Key, n.Major, ok)
		} else if ok && n.Label != label {
			t.Errorf("%s: label %q, want %q", n.Key, n.Label, label)
		}
		if n.Major {
			major++
		}
	}
	if major != 13 {
		t.Errorf("%d major nutrients, want 13", major)
	}
	for _, k := range tableNutrients {
		if !keys[k] {
			t.Errorf("missing nutrient %s", k)
		}
	}
	m := nutrientsByKey(t)
	for key, unit := range map[string]string{"ENERC_KCAL": "kcal", "ENERC_KJ": "kJ", "NA": "mg", "VITA_RAE": "µg", "FOLDFE": "µg", "VITD": "µg", "FAT": "g"} {
		if m[key].Unit != unit {
			t.Errorf("%s: unit %q, want %q", key, m[key].Unit, unit)
		}
	}
	if !strings.Contains(m["VITA_RAE"].Name, "RAE") || !strings.Contains(m["FOLDFE"].Name, "DFE") {
		t.Error("vitamin A and folate names must say RAE and DFE")
	}
}

func TestPreservations(t *testing.T) {
	ps, err := Preservations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 8 {
		t.Errorf("got %d preservation methods, want at least 8", len(ps))
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if !upperSnake.MatchString(p.Code) {
			t.Errorf("code %q is not upper snake case", p.Code)
		}
		if seen[p.Code] {
			t.Errorf("duplicate code %s", p.Code)
		}
		seen[p.Code] = true
		if p.Name == "" || !strings.Contains(p.Description, "°C") {
			t.Errorf("%s: needs a name and a temperature in °C", p.Code)
		}
	}
	for _, c := range []string{"AMBIENT", "REFRIGERATED", "FROZEN", "DEEP_FROZEN", "DRY", "CONTROLLED_ATMOSPHERE"} {
		if !seen[c] {
			t.Errorf("missing %s", c)
		}
	}
}

func TestQCUnits(t *testing.T) {
	us, err := QCUnits()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, u := range us {
		if !upperSnake.MatchString(u.Code) {
			t.Errorf("code %q is not upper snake case", u.Code)
		}
		if seen[u.Code] {
			t.Errorf("duplicate code %s", u.Code)
		}
		seen[u.Code] = true
		if u.Name == "" {
			t.Errorf("%s: empty name", u.Code)
		}
	}
	for _, c := range []string{"C", "F", "PH", "PCT", "BRIX", "AW", "G", "KG", "MM", "PPM", "CFU_G", "MIN", "S", "ML", "BAR"} {
		if !seen[c] {
			t.Errorf("missing %s", c)
		}
	}
}

// TestFoodNutrientRows checks the raw long-format file: every row names a
// known food and nutrient, and no (food, nutrient) pair repeats.
func TestFoodNutrientRows(t *testing.T) {
	fs, err := Foods()
	if err != nil {
		t.Fatal(err)
	}
	foodKeys := map[string]bool{}
	for _, f := range fs {
		foodKeys[f.Key] = true
	}
	nutrients := nutrientsByKey(t)
	b, err := files.ReadFile("food_nutrients.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]bool{}
	for i, r := range rows[1:] {
		if !foodKeys[r[0]] {
			t.Errorf("line %d: unknown food %q", i+2, r[0])
		}
		if _, ok := nutrients[r[1]]; !ok {
			t.Errorf("line %d: unknown nutrient %q", i+2, r[1])
		}
		p := [2]string{r[0], r[1]}
		if seen[p] {
			t.Errorf("line %d: duplicate %v", i+2, p)
		}
		seen[p] = true
	}
	total := 0
	for _, f := range fs {
		total += len(f.Nutrients)
	}
	if total != len(rows)-1 {
		t.Errorf("Foods carries %d values, the file has %d", total, len(rows)-1)
	}
}

// requiredFoodNutrients must have a value for every food: the core nutrients
// of the Nutrition Facts table except trans fat (which SR Legacy gives for
// only some foods), plus energy in kJ and water.
var requiredFoodNutrients = []string{
	"ENERC_KCAL", "ENERC_KJ", "FAT", "FASAT", "CHOCDF", "FIBTG", "SUGAR", "PROCNT",
	"CHOLE", "NA", "K", "CA", "FE", "WATER",
}

// atwaterExceptions are foods whose published energy uses food-specific
// energy factors far from the general 4/9/4 ones.
var atwaterExceptions = map[string]string{
	"cocoa_powder":     "SR factors 1.83/8.37/1.33: most carbohydrate is fibre",
	"cinnamon_ground":  "SR factors 1.82/8.37/2.85: most carbohydrate is fibre",
	"yeast_active_dry": "SR factors 3.00/8.40/3.40",
	"baking_powder":    "SR factors 1.50/8.40/1.90: carbohydrate by difference includes leavening acids",
}

func TestFoods(t *testing.T) {
	fs, err := Foods()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) < 32 {
		t.Errorf("got %d foods, want at least 32", len(fs))
	}
	nutrients := nutrientsByKey(t)
	keys, names, namesFr := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		if !lowerSnake.MatchString(f.Key) {
			t.Errorf("key %q is not snake_case", f.Key)
		}
		if keys[f.Key] || names[f.Name] || namesFr[f.NameFr] {
			t.Errorf("%s: duplicate key or name", f.Key)
		}
		keys[f.Key], names[f.Name], namesFr[f.NameFr] = true, true, true
		if f.Name == "" || f.NameFr == "" {
			t.Errorf("%s: empty name", f.Key)
		}
		if !srSource.MatchString(f.Source) {
			t.Errorf("%s: source %q", f.Key, f.Source)
		}
		if (f.YieldPct == nil) != (f.YieldDescription == "") {
			t.Errorf("%s: yield description and percentage go together", f.Key)
		}
		if f.YieldPct != nil && !(*f.YieldPct > 0 && *f.YieldPct <= 100) {
			t.Errorf("%s: yield %v", f.Key, *f.YieldPct)
		}

		v := map[string]float64{}
		for _, n := range f.Nutrients {
			if _, ok := nutrients[n.Nutrient]; !ok {
				t.Errorf("%s: unknown nutrient %s", f.Key, n.Nutrient)
			}
			if _, dup := v[n.Nutrient]; dup {
				t.Errorf("%s: duplicate %s", f.Key, n.Nutrient)
			}
			v[n.Nutrient] = n.Value
		}
		for _, k := range requiredFoodNutrients {
			if _, ok := v[k]; !ok {
				t.Errorf("%s: no value for %s", f.Key, k)
			}
		}

		// Grams per 100 g can't exceed 100, alone or together.
		sum := v["WATER"] + v["PROCNT"] + v["FAT"] + v["CHOCDF"] + v["ASH"] + v["ALC"]
		if sum > 101 {
			t.Errorf("%s: proximates add up to %.2f g per 100 g", f.Key, sum)
		}
		// Carbohydrate is by difference, so they add up to 100 g, except
		// where SR's ash is not (baking soda loses CO2 on ashing).
		if sum < 99 && f.Key != "baking_soda" {
			t.Errorf("%s: proximates add up to only %.2f g per 100 g", f.Key, sum)
		}
		if fa := v["FASAT"] + v["FAMS"] + v["FAPU"] + v["FATRN"]; fa > v["FAT"]+0.5 {
			t.Errorf("%s: fatty acids %.2f g exceed fat %.2f g", f.Key, fa, v["FAT"])
		}
		if v["SUGAR"] > v["CHOCDF"]+0.5 || v["FIBTG"] > v["CHOCDF"]+0.5 {
			t.Errorf("%s: sugars or fibre exceed carbohydrate", f.Key)
		}

		// Energy: kJ = 4.184 × kcal, and kcal close to the general Atwater
		// factors (4 protein, 9 fat, 4 carbohydrate, 7 alcohol).
		kcal, kj := v["ENERC_KCAL"], v["ENERC_KJ"]
		if math.Abs(kj-4.184*kcal) > 0.01*kj+2 {
			t.Errorf("%s: %v kJ does not match %v kcal", f.Key, kj, kcal)
		}
		want := 4*v["PROCNT"] + 9*v["FAT"] + 4*v["CHOCDF"] + 7*v["ALC"]
		ok := math.Abs(kcal-want) <= math.Max(15, 0.2*kcal)
		if why, exempt := atwaterExceptions[f.Key]; exempt {
			if ok {
				t.Errorf("%s is exempt from the Atwater check (%s) but passes it", f.Key, why)
			}
		} else if !ok {
			t.Errorf("%s: %v kcal, Atwater gives %.1f", f.Key, kcal, want)
		}
	}
	for k := range atwaterExceptions {
		if !keys[k] {
			t.Errorf("Atwater exception %s is not a food", k)
		}
	}
	for _, k := range []string{"wheat_flour_ap", "sugar_granulated", "egg_whole_raw", "canola_oil", "salt_table", "water_tap"} {
		if !keys[k] {
			t.Errorf("missing food %s", k)
		}
	}
}

// TestFoodSpotValues pins a few published values, to catch a shifted column.
func TestFoodSpotValues(t *testing.T) {
	fs, err := Foods()
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]float64{
		{"wheat_flour_ap", "ENERC_KCAL"}: 364,
		{"wheat_flour_ap", "PROCNT"}:     10.33,
		{"butter_unsalted", "FAT"}:       81.11,
		{"egg_whole_raw", "CHOLE"}:       372,
		{"sugar_granulated", "CHOCDF"}:   99.98,
		{"salt_table", "NA"}:             38758,
	}
	for _, f := range fs {
		for _, n := range f.Nutrients {
			k := [2]string{f.Key, n.Nutrient}
			if w, ok := want[k]; ok {
				if n.Value != w {
					t.Errorf("%v = %v, want %v", k, n.Value, w)
				}
				delete(want, k)
			}
		}
	}
	for k := range want {
		t.Errorf("no value for %v", k)
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	fs, err := Foods()
	if err != nil {
		t.Fatal(err)
	}
	fs[0].Nutrients[0].Value = -1
	fs[0].Name = "changed"
	again, err := Foods()
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Nutrients[0].Value == -1 || again[0].Name == "changed" {
		t.Error("Foods returned shared data")
	}
	for i := range again {
		if again[i].YieldPct != nil {
			*again[i].YieldPct = 1
			third, _ := Foods()
			if *third[i].YieldPct == 1 {
				t.Error("Foods shares YieldPct")
			}
			break
		}
	}
}

func TestParseCSVRejectsMalformedData(t *testing.T) {
	header := []string{"code", "name"}
	bad := map[string]string{
		"wrong header":      "code,title\nA,B\n",
		"missing field":     "code,name\nA\n",
		"extra field":       "code,name\nA,B,C\n",
		"empty required":    "code,name\n,B\n",
		"surrounding space": "code,name\nA, B\n",
		"invalid UTF-8":     "code,name\nA,\xff\n",
		"bare quote":        "code,name\nA,\"B\n",
		"empty file":        "",
	}
	for what, data := range bad {
		if _, err := parseCSV("test.csv", []byte(data), 2, header...); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	tb, err := parseCSV("test.csv", []byte("code,name\nA,B\nA,C\n"), 2, header...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.unique(0, "code"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("duplicate code: got %v, want an error on line 3", err)
	}
}
