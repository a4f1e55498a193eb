package seed

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/country"
	"larder.dev/larder/ent/food"
	"larder.dev/larder/ent/nutrient"
	"larder.dev/larder/ent/preservation"
	"larder.dev/larder/ent/qcunitofmeasure"
	"larder.dev/larder/internal/seed/refdata"
)

// reference inserts the shared reference lists of package refdata that are
// missing (countries, nutrients, preservations, QC units, foods with their
// nutrient values), each table in one bulk insert.
func reference(ctx context.Context, tx *ent.Tx) error {
	countries, err := refdata.Countries()
	if err != nil {
		return err
	}
	have, err := tx.Country.Query().Where(country.IsGlobal(true)).Select(country.FieldCode).Strings(ctx)
	if err != nil {
		return err
	}
	var cs []*ent.CountryCreate
	for _, c := range missing(countries, have, func(c refdata.Country) string { return c.Code }) {
		cs = append(cs, tx.Country.Create().SetIsGlobal(true).SetCode(c.Code).SetName(c.Name).SetNameFr(c.NameFr))
	}
	if err := bulk(ctx, "countries", cs, tx.Country.CreateBulk); err != nil {
		return err
	}

	nutrients, err := refdata.Nutrients()
	if err != nil {
		return err
	}
	have, err = tx.Nutrient.Query().Where(nutrient.IsGlobal(true)).Select(nutrient.FieldKey).Strings(ctx)
	if err != nil {
		return err
	}
	var ns []*ent.NutrientCreate
	for _, n := range missing(nutrients, have, func(n refdata.Nutrient) string { return n.Key }) {
		ns = append(ns, tx.Nutrient.Create().SetIsGlobal(true).SetKey(n.Key).SetName(n.Name).SetLabel(n.Label).SetUom(n.Unit).SetIsMajorNutrient(n.Major))
	}
	if err := bulk(ctx, "nutrients", ns, tx.Nutrient.CreateBulk); err != nil {
		return err
	}

	preservations, err := refdata.Preservations()
	if err != nil {
		return err
	}
	have, err = tx.Preservation.Query().Where(preservation.IsGlobal(true)).Select(preservation.FieldCode).Strings(ctx)
	if err != nil {
		return err
	}
	var ps []*ent.PreservationCreate
	for _, p := range missing(preservations, have, func(p refdata.Preservation) string { return p.Code }) {
		ps = append(ps, tx.Preservation.Create().SetIsGlobal(true).SetCode(p.Code).SetName(p.Name).SetDescription(p.Description))
	}
	if err := bulk(ctx, "preservations", ps, tx.Preservation.CreateBulk); err != nil {
		return err
	}

	units, err := refdata.QCUnits()
	if err != nil {
		return err
	}
	have, err = tx.QCUnitOfMeasure.Query().Where(qcunitofmeasure.IsGlobal(true)).Select(qcunitofmeasure.FieldCode).Strings(ctx)
	if err != nil {
		return err
	}
	var us []*ent.QCUnitOfMeasureCreate
	for _, u := range missing(units, have, func(u refdata.QCUnit) string { return u.Code }) {
		us = append(us, tx.QCUnitOfMeasure.Create().SetIsGlobal(true).SetCode(u.Code).SetName(u.Name))
	}
	if err := bulk(ctx, "QC units", us, tx.QCUnitOfMeasure.CreateBulk); err != nil {
		return err
	}
	return foods(ctx, tx)
}

// foods inserts the shared foods missing by name, with their nutrient values.
func foods(ctx context.Context, tx *ent.Tx) error {
	all, err := refdata.Foods()
	if err != nil {
		return err
	}
	have, err := tx.Food.Query().Where(food.IsGlobal(true), food.NameNotNil()).Select(food.FieldName).Strings(ctx)
	if err != nil {
		return err
	}
	add := missing(all, have, func(f refdata.Food) string { return f.Name })
	if len(add) == 0 {
		return nil
	}
	var fs []*ent.FoodCreate
	for _, f := range add {
		b := tx.Food.Create().SetIsGlobal(true).SetName(f.Name).SetNameFr(f.NameFr).SetSource(f.Source).SetNillableSuggestedYieldPct(f.YieldPct)
		if f.YieldDescription != "" {
			b.SetSuggestedYieldDescription(f.YieldDescription)
		}
		fs = append(fs, b)
	}
	created, err := tx.Food.CreateBulk(fs...).Save(ctx)
	if err != nil {
		return fmt.Errorf("seed foods: %w", err)
	}
	nutrients, err := tx.Nutrient.Query().Where(nutrient.IsGlobal(true)).All(ctx)
	if err != nil {
		return err
	}
	byKey := map[string]int{}
	for _, n := range nutrients {
		byKey[n.Key] = n.ID
	}
	var vs []*ent.FoodNutrientCreate
	for i, f := range add {
		for _, v := range f.Nutrients {
			id, ok := byKey[v.Nutrient]
			if !ok {
				return fmt.Errorf("seed food %s: unknown nutrient %s", f.Key, v.Nutrient)
			}
			vs = append(vs, tx.FoodNutrient.Create().SetIsGlobal(true).SetFoodID(created[i].ID).SetNutrientID(id).SetValue(v.Value))
		}
	}
	return bulk(ctx, "food nutrient values", vs, tx.FoodNutrient.CreateBulk)
}

// missing are the items whose key is not among have.
func missing[T any](items []T, have []string, key func(T) string) []T {
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[h] = true
	}
	var out []T
	for _, it := range items {
		if !seen[key(it)] {
			out = append(out, it)
		}
	}
	return out
}

// bulkSize keeps one INSERT under SQLite's and PostgreSQL's parameter limits.
const bulkSize = 500

// bulk inserts the builders in batches.
func bulk[B any, R interface{ Exec(context.Context) error }](ctx context.Context, what string, bs []B, create func(...B) R) error {
	for len(bs) > 0 {
		n := min(len(bs), bulkSize)
		if err := create(bs[:n]...).Exec(ctx); err != nil {
			return fmt.Errorf("seed %s: %w", what, err)
		}
		bs = bs[n:]
	}
	return nil
}
