package seed

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/customertype"
	"larder.dev/larder/ent/pricelist"
	"larder.dev/larder/ent/salesperson"
	"larder.dev/larder/ent/shippingmethod"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/taxrate"
	"larder.dev/larder/ent/territory"
	"larder.dev/larder/internal/platform/address"
)

// Sales reference lists of the test account (docs/api-behaviour.md, "Resources"):
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

// customerRows are the test account's customers: with and without an
// address, tags and every reference, one inactive.
var customerRows = []struct {
	code, company, contact, email, phone, city, province string
	customerType, priceList, salesperson, shipping, tax  string // codes; "" for none
	territory                                            string
	tags                                                 []string
	active                                               bool
}{
	{"EPI-QC", "Épicerie du Marché", "Sophie Roy", "achats@epicerie.example", "418-555-0101", "Québec", "QC",
		"RETAIL", "STANDARD", "SP01", "COURIER", "QC", "QC", []string{"Retail"}, true},
	{"NORTHDIST", "Northern Food Distributors", "Paul Grant", "orders@northdist.example", "416-555-0188", "Toronto", "ON",
		"WHOLESALE", "WHOLESALE", "SP02", "LTL", "HST-ON", "ON", []string{"Wholesale"}, true},
	{"CAFE-ALPHA", "Café Alpha", "Lina Haddad", "lina@cafealpha.example", "", "Montréal", "QC",
		"FOODSERVICE", "STANDARD", "SP01", "PICKUP", "QC", "QC", []string{"Retail", "Wholesale"}, true},
	{"US-GOURMET", "Gourmet Imports LLC", "Dana Wells", "buying@gourmet.example", "", "Burlington", "VT",
		"WHOLESALE", "EXPORT-US", "SP02", "LTL", "ZERO", "", nil, true},
	{"OLDSHOP", "Boutique Fermée", "", "", "", "", "",
		"RETAIL", "", "", "", "", "", nil, false},
}

// shippingRows are the customers' shipping addresses; the first is the
// default where isDefault is set (a customer has at most one).
var shippingRows = map[string][]struct {
	line1, city, state, postal, contact string
	isDefault                           bool
}{
	"EPI-QC": {
		{"45 boulevard Charest Est", "Québec", "QC", "G1K 3G1", "Réception", true},
		{"8 rue du Marché", "Lévis", "QC", "G6V 1A1", "", false},
	},
	"NORTHDIST":  {{"900 Warehouse Way", "Mississauga", "ON", "L5T 2N7", "Dock 4", true}},
	"CAFE-ALPHA": {{"310 rue Saint-Paul Ouest", "Montréal", "QC", "H2Y 2A3", "Lina Haddad", false}},
}

func seedCustomers(ctx context.Context, tx *ent.Tx) error {
	id := func(q interface {
		OnlyID(context.Context) (int, error)
	}, code string) (*int, error) {
		if code == "" {
			return nil, nil
		}
		v, err := q.OnlyID(ctx)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", code, err)
		}
		return &v, nil
	}
	for _, r := range customerRows {
		b := tx.Customer.Create().
			SetCustomerCode(r.code).
			SetCompany(r.company).
			SetNillableContact(optional(r.contact)).
			SetNillableEmail(optional(r.email)).
			SetNillablePhone(optional(r.phone)).
			SetActive(r.active)
		if r.city != "" {
			b.SetAddress(address.Address{Line1: optional("1200 Commerce Street"), City: optional(r.city), State: optional(r.province), PostalCode: optional("B2B 2B2")})
		}
		refs := []struct {
			q interface {
				OnlyID(context.Context) (int, error)
			}
			set func(*int) *ent.CustomerCreate
			c   string
		}{
			{tx.CustomerType.Query().Where(customertype.Code(r.customerType)), b.SetNillableCustomerTypeID, r.customerType},
			{tx.PriceList.Query().Where(pricelist.Code(r.priceList)), b.SetNillablePriceListID, r.priceList},
			{tx.Salesperson.Query().Where(salesperson.Code(r.salesperson)), b.SetNillableSalespersonID, r.salesperson},
			{tx.ShippingMethod.Query().Where(shippingmethod.Code(r.shipping)), b.SetNillableShippingMethodID, r.shipping},
			{tx.TaxRate.Query().Where(taxrate.Code(r.tax)), b.SetNillableTaxRateID, r.tax},
			{tx.Territory.Query().Where(territory.Code(r.territory)), b.SetNillableTerritoryID, r.territory},
		}
		for _, ref := range refs {
			v, err := id(ref.q, ref.c)
			if err != nil {
				return fmt.Errorf("customer %s: %w", r.code, err)
			}
			ref.set(v)
		}
		c, err := b.Save(ctx)
		if err != nil {
			return fmt.Errorf("customer %s: %w", r.code, err)
		}
		for _, sa := range shippingRows[r.code] {
			err := tx.ShippingAddress.Create().
				SetCustomerID(c.ID).
				SetAddress(address.Address{Line1: optional(sa.line1), City: optional(sa.city), State: optional(sa.state), PostalCode: optional(sa.postal)}).
				SetNillableContact(optional(sa.contact)).
				SetIsDefault(sa.isDefault).
				Exec(ctx)
			if err != nil {
				return fmt.Errorf("customer %s: shipping address: %w", r.code, err)
			}
		}
		for _, name := range r.tags {
			t, err := tx.Tag.Query().Where(tag.Name(name), tag.RefTypeEQ(tag.RefTypeCUSTOMER)).OnlyID(ctx)
			if err != nil {
				return fmt.Errorf("customer %s: tag %s: %w", r.code, name, err)
			}
			if err := tx.CustomerTag.Create().SetCustomerID(c.ID).SetTagID(t).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
