package seed

import (
	"context"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
)

// Sales reference lists of the test account (DECISIONS "reference lists"):
// tax rates, salespersons, customer types, price lists, shipping methods and
// territories, each with an inactive row where the list has active.

// taxRateRows are Canadian sales taxes: one rate, two rates, and none.
var taxRateRows = []struct{ code, name, about, rate1, label1, rate2, label2 string }{
	{"GST", "GST only", "Federal goods and services tax (AB, territories).", "5", "GST", "", ""},
	{"HST-ON", "HST Ontario", "Harmonized sales tax, Ontario.", "13", "HST", "", ""},
	{"QC", "GST + QST", "Quebec: federal tax and Quebec sales tax.", "5", "GST", "9.975", "QST"},
	{"ZERO", "Zero-rated", "Basic groceries: zero-rated supplies.", "0", "GST", "", ""},
}

func seedSalesReference(ctx context.Context, tx *ent.Tx) error {
	num := func(v string) *decimal.Decimal {
		if v == "" {
			return nil
		}
		d := decimal.RequireFromString(v)
		return &d
	}
	for _, r := range taxRateRows {
		err := tx.TaxRate.Create().
			SetCode(r.code).
			SetName(r.name).
			SetDescription(r.about).
			SetNillableTaxRate1(num(r.rate1)).
			SetNillableTaxRate1Label(optional(r.label1)).
			SetNillableTaxRate2(num(r.rate2)).
			SetNillableTaxRate2Label(optional(r.label2)).
			Exec(ctx)
		if err != nil {
			return err
		}
	}
	for _, s := range []struct {
		code, first, last, email string
		active                   bool
	}{
		{"SP01", "Nadia", "Lévesque", "nadia.levesque@example.com", true},
		{"SP02", "Kevin", "Chan", "kevin.chan@example.com", true},
		{"SP03", "Amélie", "Gauthier", "", true},
		{"SP04", "Robert", "MacLeod", "robert.macleod@example.com", false},
	} {
		err := tx.Salesperson.Create().
			SetCode(s.code).
			SetFirstName(s.first).
			SetLastName(s.last).
			SetNillableEmail(optional(s.email)).
			SetActive(s.active).
			Exec(ctx)
		if err != nil {
			return err
		}
	}
	type row struct {
		code, name, about string
		active            bool
	}
	for _, r := range []row{
		{"RETAIL", "Retail", "Grocery stores and independent shops.", true},
		{"WHOLESALE", "Wholesale", "Distributors buying by the pallet.", true},
		{"FOODSERVICE", "Food service", "Cafés, schools and caterers.", true},
		{"ONLINE", "Online shop", "Orders from the web shop.", false},
	} {
		if err := tx.CustomerType.Create().SetCode(r.code).SetName(r.name).SetDescription(r.about).SetActive(r.active).Exec(ctx); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		row
		currency string
	}{
		{row{"STANDARD", "Standard", "List prices.", true}, "CAD"},
		{row{"WHOLESALE", "Wholesale", "Pallet prices for distributors.", true}, "CAD"},
		{row{"EXPORT-US", "Export USA", "Prices for customers in the United States.", true}, "USD"},
		{row{"PROMO-2025", "Holiday promotion 2025", "Ended.", false}, "CAD"},
	} {
		err := tx.PriceList.Create().SetCode(r.code).SetName(r.name).SetDescription(r.about).SetActive(r.active).SetCurrency(r.currency).Exec(ctx)
		if err != nil {
			return err
		}
	}
	for _, r := range []row{
		{"PICKUP", "Customer pickup", "Collected at the plant's shipping dock.", true},
		{"COURIER", "Courier", "Parcels, next business day.", true},
		{"LTL", "LTL freight", "Less-than-truckload, palletized.", true},
		{"REEFER", "Refrigerated truck", "Chilled goods, 2–4 °C.", false},
	} {
		if err := tx.ShippingMethod.Create().SetCode(r.code).SetName(r.name).SetDescription(r.about).SetActive(r.active).Exec(ctx); err != nil {
			return err
		}
	}
	for _, r := range []row{
		{"QC", "Quebec", "Province of Quebec.", true},
		{"ON", "Ontario", "Province of Ontario.", true},
		{"WEST", "Western Canada", "BC, AB, SK and MB.", true},
		{"ATL", "Atlantic", "Maritime provinces; served by a distributor now.", false},
	} {
		if err := tx.Territory.Create().SetCode(r.code).SetName(r.name).SetDescription(r.about).SetActive(r.active).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
