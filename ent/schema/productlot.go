package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/shopspring/decimal"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// ProductLot is stock of one product, with one number, at one place: what a
// stock movement enters, moves, consumes or ships, and what a recall traces.
// A product has at most one unnumbered lot. Lots are never deleted.
type ProductLot struct{ ent.Schema }

// Mixin makes lots an account's, with exposed timestamps.
func (ProductLot) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}}
}

// QC statuses of a lot (spec Product lot): sellable are AVAILABLE and RELEASED.
var qcStatuses = []string{"AVAILABLE", "ON_HOLD", "QUARANTINE", "RELEASED", "REJECTED"}

// Fields of a lot.
func (ProductLot) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product the lot holds.").
			Annotations(annotate.Filterable(),
				annotate.Borrow("product_code", "name:product_name", "unit_of_measure_id", "uom_base_id", "uom_qty", "uom_base_conversion"),
				annotate.SortBorrowed("product_name")),
		field.Int("location_id").
			Optional().
			Nillable().
			Comment("Where the lot is: a warehouse or a location inside one; null when not placed.").
			Annotations(annotate.Filterable(), annotate.Borrow("code:location_code", "name:location_name")),
		field.Int("warehouse_id").
			Optional().
			Nillable().
			Comment("The warehouse of the lot's location: lots in it plus lots with no location.").
			Annotations(annotate.Hidden(), annotate.FilterOrNull()),
		field.String("product_name").
			Optional().
			Nillable().
			Comment("A copy of the product's name, kept in step with it, so that lists sort by product_name from an index.").
			Annotations(annotate.Hidden()),
		field.Int("location_key").
			Default(0).
			Comment("location_id, 0 for none: keeps lot numbers unique per product and location when there is no location.").
			Annotations(annotate.Hidden()),
		field.String("lot_number").
			Optional().
			Nillable().
			Comment("The lot's number, unique per product and location; null for the product's unnumbered lot.").
			Annotations(annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Time("expiration_date").
			Optional().
			Nillable().
			Comment("When the lot expires (UTC).").
			Annotations(annotate.Sortable()),
		field.Bool("archived").
			Default(false).
			Comment("Retired lots stay readable; changed by the archive and unarchive operations.").
			Annotations(annotate.Output(), annotate.Filterable()),
		field.Enum("lot_origin").
			Values("RECEPTION", "INVOICE", "PRODUCTION", "MANUAL_ADJUSTMENT", "PACKAGING", "SHIPPING", "INVENTORY_COUNT", "PRODUCT_FORM", "SHOPIFY").
			Optional().
			Nillable().
			Comment("What created the lot.").
			Annotations(annotate.Output()),
		field.Enum("qc_status").
			Values(qcStatuses...).
			Default("AVAILABLE").
			Comment("Quality status; set in the web application. Sellable: AVAILABLE and RELEASED.").
			Annotations(annotate.Output()),
		field.Time("qc_status_at").
			Optional().
			Nillable().
			Comment("When the quality status last changed (UTC).").
			Annotations(annotate.Output()),
		field.String("qc_status_note").
			Optional().
			Nillable().
			Comment("Why the quality status was set.").
			Annotations(annotate.Output()),
		field.Time("qc_release_expires_at").
			Optional().
			Nillable().
			Comment("When RELEASED stops counting as sellable; null means no expiry.").
			Annotations(annotate.Output()),
		field.Other("quantity_base", decimal.Decimal{}).
			SchemaType(map[string]string{dialect.Postgres: "numeric(20,6)", dialect.SQLite: "numeric"}).
			Comment("On hand, in the product's base unit. A change through PATCH is a correction and writes no stock movement.").
			Annotations(annotate.Decimal(), annotate.Number(), annotate.Min(0), annotate.Sortable()),
	}
}

// Edges of a lot: its product and place, and its stock movements.
func (ProductLot) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("product", Product.Type).
			Field("product_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("location", Location.Type).
			Field("location_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("warehouse", Location.Type).
			Field("warehouse_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("movements", StockMovement.Type).
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("corrections", LotCorrection.Type).
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Hooks place the lot in its warehouse, copy its product's name (for
// sorting), and account for every change of its quantity.
func (ProductLot) Hooks() []ent.Hook {
	return []ent.Hook{hooks.PlaceLot(), hooks.CopyProductName(), hooks.AccountStock()}
}

// Indexes back filters and sorts; lot numbers are unique per product and
// location, and a product has one unnumbered lot.
func (ProductLot) Indexes() []ent.Index {
	return append(tenantIndexes("product_id", "location_id", "warehouse_id", "lot_number", "expiration_date",
		"archived", "created_at", "updated_at", "quantity_base", "product_name"),
		// Picking reads a product's lots in this order (inventory.Pick).
		index.Fields("account_id", "product_id", "expiration_date", "id"),
		index.Fields("account_id", "product_id", "location_key", "lot_number").Unique(),
		index.Fields("account_id", "product_id").
			Unique().
			StorageKey("product_lots_unnumbered").
			Annotations(entsql.IndexWhere("lot_number IS NULL")),
		// The partial lot_number filter and search are substrings (ILIKE
		// '%…%' on PostgreSQL), which only a trigram index serves.
		index.Fields("lot_number").
			StorageKey("product_lots_lot_number_trgm").
			Annotations(
				entsql.IndexTypes(map[string]string{dialect.Postgres: "GIN"}),
				entsql.OpClassColumn("lot_number", "gin_trgm_ops"),
			),
	)
}

// Annotations expose lots at /product-lots with their archive operations.
func (ProductLot) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("product-lots", "lot_id", annotate.Inventory, annotate.List, annotate.Read, annotate.Create, annotate.Update).
			Updated().
			Emits("created", "updated", "archived", "unarchived", "qc_status_changed").
			With(
				annotate.Act("archive", "archiveProductLot", "Archive a product lot").
					Describe("Retires the lot; it stays readable. 409 INVALID_STATE for an archived lot and for the product's unnumbered lot."),
				annotate.Act("unarchive", "unarchiveProductLot", "Unarchive a product lot").
					Describe("Brings an archived lot back. 409 INVALID_STATE for a lot that is not archived and for the product's unnumbered lot."),
			).
			Describe("Product lots: stock of a product, numbered or not, at a place. Every change of quantity_base is accounted by a stock movement, or, through PATCH, by a recorded correction."),
	}
}
