// Package reflist maintains the reference lists the API only reads: tax
// rates, salespersons, customer types, price lists, shipping methods and
// territories (sales) and employees (manufacturing). They are written in the
// web application, which for now is the CLI: a file of records upserts rows
// by code, and an export writes a list in the same format, so a list moves
// between accounts and round-trips.
//
// Every list is described once, in Lists, by its columns; reading, checking,
// comparing and writing rows are the same code for all of them (ent's generic
// mutations), so a new list is one entry.
package reflist

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/catalog"
)

// kind is how a column is written in a file and stored.
type kind int

const (
	text     kind = iota // a string
	flag                 // a boolean; omitted is true
	percent              // an exact decimal from 0 to 100
	currency             // an ISO 4217 code; omitted is the organization's currency
)

// column is one field of a list's records, named as the API names it.
type column struct {
	name     string
	kind     kind
	required bool
	max      int // characters, for text
}

func str(name string, max int) column { return column{name: name, kind: text, max: max} }

func required(c column) column { c.required = true; return c }

// Text lengths: the API reads these lists only, so the spec bounds none of
// them; these match the written resources' (customer_code 40, names 100,
// notes and descriptions 2000).
const (
	codeLen  = 40
	nameLen  = 100
	aboutLen = 2000
)

// codeColumn is every list's key. Tax rates and salespersons have an
// optional code in the API; a file must give one, since it is how a record
// finds its row.
var codeColumn = required(str("code", codeLen))

// the four lists customer types, price lists, shipping methods and territories: id, code, name, description, active.
var fourColumns = []column{codeColumn, required(str("name", nameLen)), str("description", aboutLen), {name: "active", kind: flag}}

// List is one reference list.
type List struct {
	// Name is the list's API path: tax-rates.
	Name    string
	columns []column
	create  func(*ent.Client) ent.Mutation
	update  func(*ent.Client, int) ent.Mutation
	all     func(context.Context, *ent.Client) (any, error)
}

// Columns are the list's fields in file order.
func (l *List) Columns() []string {
	out := make([]string, len(l.columns))
	for i, c := range l.columns {
		out[i] = c.name
	}
	return out
}

func (l *List) column(name string) (column, bool) {
	for _, c := range l.columns {
		if c.name == name {
			return c, true
		}
	}
	return column{}, false
}

// Lists are the lists, by name.
var Lists = []*List{
	{
		Name: "tax-rates",
		columns: []column{codeColumn, str("name", nameLen), str("description", aboutLen),
			{name: "tax_rate1", kind: percent}, str("tax_rate1_label", codeLen),
			{name: "tax_rate2", kind: percent}, str("tax_rate2_label", codeLen)},
		create: func(c *ent.Client) ent.Mutation { return c.TaxRate.Create().Mutation() },
		update: func(c *ent.Client, id int) ent.Mutation { return c.TaxRate.UpdateOneID(id).Mutation() },
		all:    func(ctx context.Context, c *ent.Client) (any, error) { return c.TaxRate.Query().All(ctx) },
	},
	{
		Name: "salespersons",
		columns: []column{codeColumn, str("first_name", nameLen), str("last_name", nameLen),
			str("email", nameLen), {name: "active", kind: flag}},
		create: func(c *ent.Client) ent.Mutation { return c.Salesperson.Create().Mutation() },
		update: func(c *ent.Client, id int) ent.Mutation { return c.Salesperson.UpdateOneID(id).Mutation() },
		all:    func(ctx context.Context, c *ent.Client) (any, error) { return c.Salesperson.Query().All(ctx) },
	},
	{
		Name:    "customer-types",
		columns: fourColumns,
		create:  func(c *ent.Client) ent.Mutation { return c.CustomerType.Create().Mutation() },
		update:  func(c *ent.Client, id int) ent.Mutation { return c.CustomerType.UpdateOneID(id).Mutation() },
		all:     func(ctx context.Context, c *ent.Client) (any, error) { return c.CustomerType.Query().All(ctx) },
	},
	{
		Name:    "price-lists",
		columns: append(slices.Clone(fourColumns), column{name: "currency", kind: currency}),
		create:  func(c *ent.Client) ent.Mutation { return c.PriceList.Create().Mutation() },
		update:  func(c *ent.Client, id int) ent.Mutation { return c.PriceList.UpdateOneID(id).Mutation() },
		all:     func(ctx context.Context, c *ent.Client) (any, error) { return c.PriceList.Query().All(ctx) },
	},
	{
		Name:    "shipping-methods",
		columns: fourColumns,
		create:  func(c *ent.Client) ent.Mutation { return c.ShippingMethod.Create().Mutation() },
		update:  func(c *ent.Client, id int) ent.Mutation { return c.ShippingMethod.UpdateOneID(id).Mutation() },
		all:     func(ctx context.Context, c *ent.Client) (any, error) { return c.ShippingMethod.Query().All(ctx) },
	},
	{
		Name:    "territories",
		columns: fourColumns,
		create:  func(c *ent.Client) ent.Mutation { return c.Territory.Create().Mutation() },
		update:  func(c *ent.Client, id int) ent.Mutation { return c.Territory.UpdateOneID(id).Mutation() },
		all:     func(ctx context.Context, c *ent.Client) (any, error) { return c.Territory.Query().All(ctx) },
	},
	{
		Name: "employees",
		columns: []column{codeColumn, required(str("first_name", nameLen)), required(str("last_name", nameLen)),
			str("email", nameLen), {name: "active", kind: flag}},
		create: func(c *ent.Client) ent.Mutation { return c.Employee.Create().Mutation() },
		update: func(c *ent.Client, id int) ent.Mutation { return c.Employee.UpdateOneID(id).Mutation() },
		all:    func(ctx context.Context, c *ent.Client) (any, error) { return c.Employee.Query().All(ctx) },
	},
}

// Names are the lists' names, for messages.
func Names() []string {
	out := make([]string, len(Lists))
	for i, l := range Lists {
		out[i] = l.Name
	}
	return out
}

// Find returns the list named name.
func Find(name string) (*List, error) {
	for _, l := range Lists {
		if l.Name == name {
			return l, nil
		}
	}
	return nil, fmt.Errorf("unknown list %q: use one of %s", name, strings.Join(Names(), ", "))
}

// Record is one row of a list as a file holds it: each column's value in
// canonical text (a decimal without trailing zeros, true or false), nil for
// null. A record is the whole row: a column it leaves out is cleared (or takes
// its default: active true, the organization's currency).
type Record map[string]*string

// Line is a record and the line of the file it came from.
type Line struct {
	N int
	R Record
}

// Result counts what an import did.
type Result struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// row is a stored row.
type row struct {
	id int
	r  Record
}

// rows reads every row of the list in the viewer's account.
func (l *List) rows(ctx context.Context, c *ent.Client) ([]row, error) {
	got, err := l.all(ctx, c)
	if err != nil {
		return nil, err
	}
	// Entities marshal by their JSON tags, which are the API's field names.
	b, err := json.Marshal(got)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	if err := json.Unmarshal(b, &objs); err != nil {
		return nil, err
	}
	out := make([]row, len(objs))
	for i, o := range objs {
		id, _ := o["id"].(float64)
		r := Record{}
		for _, col := range l.columns {
			switch v := o[col.name].(type) {
			case string:
				r[col.name] = &v
			case bool:
				s := fmt.Sprint(v)
				r[col.name] = &s
			case nil:
				if col.kind == flag { // omitempty drops false
					s := "false"
					r[col.name] = &s
				}
			default:
				return nil, fmt.Errorf("%s: column %s holds %T", l.Name, col.name, v)
			}
			if col.kind == percent && r[col.name] != nil {
				s := decimal.RequireFromString(*r[col.name]).String()
				r[col.name] = &s
			}
		}
		out[i] = row{id: int(id), r: r}
	}
	slices.SortFunc(out, func(a, b row) int {
		switch {
		case a.r["code"] == nil && b.r["code"] != nil:
			return 1
		case a.r["code"] != nil && b.r["code"] == nil:
			return -1
		case a.r["code"] != nil && *a.r["code"] != *b.r["code"]:
			return strings.Compare(*a.r["code"], *b.r["code"])
		}
		return a.id - b.id
	})
	return out, nil
}

// Export returns every row of the list in the viewer's account, by code.
func (l *List) Export(ctx context.Context, c *ent.Client) ([]Record, error) {
	rows, err := l.rows(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]Record, len(rows))
	for i, r := range rows {
		out[i] = r.r
	}
	return out, nil
}

// check validates and normalizes each line's record in place (text trimmed,
// decimals canonical, defaults applied) and returns every problem found.
func (l *List) check(lines []Line, orgCurrency string) []catalog.LineError {
	var errs []catalog.LineError
	seen := map[string]int{}
	for _, ln := range lines {
		fail := func(field, msg string) { errs = append(errs, catalog.LineError{Line: ln.N, Field: field, Msg: msg}) }
		for _, col := range l.columns {
			v := ln.R[col.name]
			if v != nil && col.kind != flag {
				s := strings.TrimSpace(*v)
				if s == "" {
					v = nil
				} else {
					v = &s
				}
			}
			if v == nil {
				switch {
				case col.kind == flag:
					s := "true"
					v = &s
				case col.kind == currency:
					v = &orgCurrency
				case col.required:
					fail(col.name, "is required")
				}
				ln.R[col.name] = v
				continue
			}
			switch col.kind {
			case text:
				if err := bounds.Text(*v); err != nil {
					fail(col.name, err.Error())
				} else if n := utf8.RuneCountInString(*v); n > col.max {
					fail(col.name, fmt.Sprintf("has %d characters, at most %d", n, col.max))
				}
			case currency:
				if !tenancy.Currency(*v) {
					fail(col.name, "must be an ISO 4217 code such as CAD")
				}
			case percent:
				d, err := decimal.NewFromString(*v)
				if err != nil {
					fail(col.name, "must be a number")
					break
				}
				if err := bounds.CheckDecimal(d); err != nil {
					fail(col.name, err.Error())
					break
				}
				if d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100)) {
					fail(col.name, "must be a percentage from 0 to 100")
					break
				}
				s := d.String()
				v = &s
			case flag:
				if *v != "true" && *v != "false" {
					fail(col.name, "must be true or false")
				}
			}
			ln.R[col.name] = v
		}
		if code := ln.R["code"]; code != nil {
			if first, ok := seen[*code]; ok {
				fail("code", fmt.Sprintf("%q is also on line %d", *code, first))
			} else {
				seen[*code] = ln.N
			}
		}
	}
	return errs
}

// Import checks every record of the file and, when none has a problem,
// creates the rows whose code is new and updates the others that differ, in
// one transaction; it writes nothing when a record has a problem (a
// *catalog.FileError lists them all). perrs are the file's syntax problems,
// reported with the others.
func (l *List) Import(ctx context.Context, c *ent.Client, lines []Line, perrs []catalog.LineError) (Result, error) {
	var res Result
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		var err error
		res, err = l.ImportTx(ctx, tx, lines, perrs) // counted afresh if the transaction runs again
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// Check reports every problem Import would find in the file (perrs, its
// syntax problems, with the others), by line, writing nothing; it normalizes
// the records in place as Import does.
func (l *List) Check(ctx context.Context, c *ent.Client, lines []Line, perrs []catalog.LineError) ([]catalog.LineError, error) {
	currency, err := tenancy.CurrencyOf(ctx, c)
	if err != nil {
		return nil, err
	}
	errs := append(slices.Clone(perrs), l.check(lines, currency)...)
	slices.SortStableFunc(errs, func(a, b catalog.LineError) int { return a.Line - b.Line })
	return errs, nil
}

// ImportTx is Import within the transaction tx, so that the caller records
// more in the same transaction (the console's audit record).
func (l *List) ImportTx(ctx context.Context, tx *ent.Tx, lines []Line, perrs []catalog.LineError) (Result, error) {
	errs, err := l.Check(ctx, tx.Client(), lines, perrs)
	if err != nil {
		return Result{}, err
	}
	if len(errs) > 0 {
		return Result{}, &catalog.FileError{Problems: errs}
	}
	var res Result
	stored, err := l.rows(ctx, tx.Client())
	if err != nil {
		return Result{}, err
	}
	byCode := map[string]row{}
	for _, r := range stored {
		if code := r.r["code"]; code != nil {
			byCode[*code] = r
		}
	}
	for _, ln := range lines {
		old, ok := byCode[*ln.R["code"]]
		var m ent.Mutation
		switch {
		case !ok:
			m = l.create(tx.Client())
			res.Created++
		case same(old.r, ln.R):
			res.Unchanged++
			continue
		default:
			m = l.update(tx.Client(), old.id)
			res.Updated++
		}
		if err := l.set(m, ln.R, ok); err != nil {
			return Result{}, fmt.Errorf("line %d: %w", ln.N, err)
		}
		if _, err := tx.Client().Mutate(ctx, m); err != nil {
			return Result{}, fmt.Errorf("line %d: %w", ln.N, err)
		}
	}
	return res, nil
}

func same(a, b Record) bool {
	for k, v := range b {
		w := a[k]
		if (v == nil) != (w == nil) || (v != nil && *v != *w) {
			return false
		}
	}
	return true
}

// set writes a checked record into a mutation; on an update, a null clears.
func (l *List) set(m ent.Mutation, r Record, update bool) error {
	for _, col := range l.columns {
		v := r[col.name]
		if v == nil {
			if update {
				if err := m.ClearField(col.name); err != nil {
					return err
				}
			}
			continue
		}
		var value ent.Value = *v
		switch col.kind {
		case flag:
			value = *v == "true"
		case percent:
			value = decimal.RequireFromString(*v)
		}
		if err := m.SetField(col.name, value); err != nil {
			return err
		}
	}
	return nil
}

// examples are an example value of each column name, for the templates.
var examples = map[string]string{
	"code": "WHOLESALE", "name": "Wholesale", "description": "Shops and restaurants buying by the case",
	"active": "true", "tax_rate1": "5", "tax_rate1_label": "GST", "tax_rate2": "9.975", "tax_rate2_label": "QST",
	"first_name": "Marie", "last_name": "Tremblay", "email": "marie.tremblay@example.com", "currency": "CAD",
}

// Spec describes the list's columns in file order as the import reads them:
// required or not, how each is written, and an example.
func (l *List) Spec() []catalog.ColumnSpec {
	out := make([]catalog.ColumnSpec, len(l.columns))
	for i, c := range l.columns {
		var format string
		switch c.kind {
		case flag:
			format = "true or false; omitted is true"
		case percent:
			format = "a number from 0 to 100"
		case currency:
			format = "an ISO 4217 currency code; omitted is the organization's currency"
		default:
			format = fmt.Sprintf("text, at most %d characters", c.max)
		}
		if c.name == "code" {
			format += "; finds the record to update, or creates it"
		}
		out[i] = catalog.ColumnSpec{Name: c.name, Required: c.required, Format: format, Example: examples[c.name]}
	}
	return out
}

// Preview says, for each line of a checked file, what ImportTx would do
// with it in the account of ctx (catalog's outcomes), writing nothing: the
// same comparison by code the import makes.
func (l *List) Preview(ctx context.Context, c *ent.Client, lines []Line) ([]catalog.Outcome, error) {
	stored, err := l.rows(ctx, c)
	if err != nil {
		return nil, err
	}
	byCode := map[string]row{}
	for _, r := range stored {
		if code := r.r["code"]; code != nil {
			byCode[*code] = r
		}
	}
	out := make([]catalog.Outcome, len(lines))
	for i, ln := range lines {
		code := *ln.R["code"]
		o := catalog.Outcome{Line: ln.N, Code: code, Kind: catalog.OutcomeNew}
		if old, ok := byCode[code]; ok {
			o.Kind = catalog.OutcomeUpdate
			if same(old.r, ln.R) {
				o.Kind = catalog.OutcomeUnchanged
			}
		}
		out[i] = o
	}
	return out, nil
}
