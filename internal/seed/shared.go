// Package seed writes data Larder ships with: the shared reference rows every
// account reads (units of measure, the priority food allergens of Canada,
// countries, nutrients, preservations, QC units and foods from package refdata)
// and the dataset of every organization's test account.
package seed

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/allergen"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/hooks"
	"larder.dev/larder/policy"
)

// Unit is a shared unit of measure.
type Unit struct {
	Code, Name    string
	WeightInGrams *float64
}

func grams(g float64) *float64 { return &g }

// Units are the shared units of measure. Weights are exact by definition
// (1 lb = 453.59237 g) or, where that needs more than the 6 decimal places
// every decimal of the API has, rounded to them (1 oz = 1/16 lb =
// 28.349523125 g); volumes and counts are not weights.
var Units = []Unit{
	{"g", "Gram", grams(1)},
	{"kg", "Kilogram", grams(1000)},
	{"mg", "Milligram", grams(0.001)},
	{"lb", "Pound", grams(453.59237)},
	{"oz", "Ounce", grams(28.349523)},
	{"L", "Litre", nil},
	{"mL", "Millilitre", nil},
	{"each", "Each", nil},
	{"unit", "Unit", nil},
	{"dozen", "Dozen", nil},
	{"case", "Case", nil},
}

// Allergen is a shared allergen.
type Allergen struct {
	Code, Name, NameFr, Description string
}

// AllergenReference is the regulation that lists Canada's priority food
// allergens, gluten sources and added sulphites (Food and Drug Regulations).
const AllergenReference = "FDR B.01.010.1(1)"

// Allergens are the priority food allergens of Canada, with gluten sources
// and added sulphites, which the same regulation requires on labels.
var Allergens = []Allergen{
	{"PEANUT", "Peanuts", "Arachides", "Peanuts and peanut-derived ingredients."},
	{"TREE_NUT", "Tree nuts", "Noix", "Almonds, Brazil nuts, cashews, hazelnuts, macadamias, pecans, pine nuts, pistachios and walnuts."},
	{"SESAME", "Sesame seeds", "Graines de sésame", "Sesame seeds and sesame-derived ingredients."},
	{"MILK", "Milk", "Lait", "Milk and milk-derived ingredients."},
	{"EGG", "Eggs", "Œufs", "Eggs and egg-derived ingredients."},
	{"FISH", "Fish", "Poisson", "Fish and fish-derived ingredients."},
	{"CRUSTACEAN", "Crustaceans", "Crustacés", "Shellfish such as crab, crayfish, lobster, prawns and shrimp."},
	{"MOLLUSC", "Molluscs", "Mollusques", "Shellfish such as clams, mussels, oysters, scallops and squid."},
	{"SOY", "Soy", "Soja", "Soybeans and soy-derived ingredients."},
	{"WHEAT", "Wheat and triticale", "Blé et triticale", "Wheat, including spelt and kamut, and triticale."},
	{"MUSTARD", "Mustard", "Moutarde", "Mustard seeds and mustard-derived ingredients."},
	{"GLUTEN", "Gluten sources", "Sources de gluten", "Gluten from barley, oats, rye, triticale or wheat."},
	{"SULPHITES", "Sulphites", "Sulfites", "Added sulphites at 10 parts per million or more."},
}

// Shared inserts the shared reference rows that are missing, matched by code,
// and corrects the weight of a shared unit that differs from Units, so
// running it again (every migrate and serve does) changes nothing. It reads
// each table once and inserts what is missing in one statement, so that a
// database already seeded costs a handful of reads.
func Shared(ctx context.Context, c *ent.Client) error {
	// System viewer: shared reference rows belong to no account; only the system writes them.
	ctx = hooks.WithoutEvents(policy.System(ctx))
	return ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		if err := units(ctx, tx); err != nil {
			return err
		}
		if err := allergens(ctx, tx); err != nil {
			return err
		}
		return reference(ctx, tx)
	})
}

// units inserts the missing shared units and gives every shared unit the
// weight Units gives it: a database seeded before a weight changed here
// gets the new one.
func units(ctx context.Context, tx *ent.Tx) error {
	have, err := tx.UnitOfMeasure.Query().Where(unitofmeasure.IsGlobal(true)).
		Select(unitofmeasure.FieldCode, unitofmeasure.FieldWeightInGrams).All(ctx)
	if err != nil {
		return fmt.Errorf("seed units: %w", err)
	}
	codes := make([]string, len(have))
	weight := make(map[string]*float64, len(have))
	for i, u := range have {
		codes[i] = u.Code
		weight[u.Code] = u.WeightInGrams
	}
	var cs []*ent.UnitOfMeasureCreate
	for _, u := range missing(Units, codes, func(u Unit) string { return u.Code }) {
		cs = append(cs, tx.UnitOfMeasure.Create().
			SetIsGlobal(true).
			SetReadOnly(true).
			SetCode(u.Code).
			SetName(u.Name).
			SetNillableWeightInGrams(u.WeightInGrams))
	}
	if err := bulk(ctx, "units", cs, tx.UnitOfMeasure.CreateBulk); err != nil {
		return err
	}
	for _, u := range Units {
		w, ok := weight[u.Code]
		if !ok || sameWeight(w, u.WeightInGrams) {
			continue
		}
		up := tx.UnitOfMeasure.Update().Where(unitofmeasure.IsGlobal(true), unitofmeasure.Code(u.Code))
		if u.WeightInGrams == nil {
			up.ClearWeightInGrams()
		} else {
			up.SetWeightInGrams(*u.WeightInGrams)
		}
		if err := up.Exec(ctx); err != nil {
			return fmt.Errorf("seed unit %s: %w", u.Code, err)
		}
	}
	return nil
}

// sameWeight reports whether two optional weights are both absent or equal.
func sameWeight(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// allergens inserts the missing shared allergens.
func allergens(ctx context.Context, tx *ent.Tx) error {
	have, err := tx.Allergen.Query().Where(allergen.IsGlobal(true)).Select(allergen.FieldCode).Strings(ctx)
	if err != nil {
		return fmt.Errorf("seed allergens: %w", err)
	}
	var cs []*ent.AllergenCreate
	for _, a := range missing(Allergens, have, func(a Allergen) string { return a.Code }) {
		cs = append(cs, tx.Allergen.Create().
			SetIsGlobal(true).
			SetCode(a.Code).
			SetName(a.Name).
			SetNameFr(a.NameFr).
			SetDescription(a.Description).
			SetIsMajorAllergen(true).
			SetRegulatoryReference(AllergenReference))
	}
	return bulk(ctx, "allergens", cs, tx.Allergen.CreateBulk)
}
