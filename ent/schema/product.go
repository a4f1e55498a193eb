package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// Product is a material or a recipe of the catalog. The API only reads
// products; the web application (the CLI) writes them.
type Product struct{ ent.Schema }

// Mixin makes products an account's, with audit timestamps in the API.
func (Product) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}}
}

// Fields of a product, material and recipe fields in their groups.
func (Product) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the product is in use."),
		field.Bool("is_deleted").
			Default(false).
			Comment("Deleted in the web application; kept for the records that reference it."),
		decimalField("cost", "Cost per inventory unit.", annotate.Cost()),
		decimalField("operations_cost", "Operations cost per inventory unit, separate from cost.", annotate.Cost()),
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description."),
		field.String("name").
			Optional().
			Nillable().
			Comment("Display name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("product_code").
			Optional().
			Nillable().
			Comment("The product's code, unique within the account.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("kind").
			Values("material", "recipe").
			Comment("material or recipe, derived from product_type.").
			Annotations(annotate.Output()),
		field.Enum("product_type").
			Values("RAW_MATERIAL", "PACKAGING", "MISCELLANEOUS", "RECIPE", "SUB_RECIPE", "FINISHED_GOOD").
			Comment("RAW_MATERIAL, PACKAGING and MISCELLANEOUS are materials; RECIPE, SUB_RECIPE and FINISHED_GOOD are recipes.").
			Annotations(annotate.RepeatableFilter("product_types"), annotate.Sortable()),
		field.Int("shelf_life").
			Optional().
			Nillable().
			Comment("Shelf life in days."),
		field.Int("unit_of_measure_id").
			Optional().
			Nillable().
			Comment("Inventory unit."),
		field.Int("uom_base_id").
			Optional().
			Nillable().
			Comment("Base unit."),
		field.Float("uom_qty").
			Optional().
			Nillable().
			Comment("One inventory unit equals uom_qty times uom_base_conversion base units."),
		field.Float("uom_base_conversion").
			Optional().
			Nillable().
			Comment("Base units per uom_qty; see uom_qty."),
		field.Int("food_id").
			Optional().
			Nillable().
			Comment("The nutrition source, fetched via foods.").
			Annotations(annotate.In("material")),
		field.String("ingredients_en").
			Optional().
			Nillable().
			Comment("Generated ingredients declaration, English.").
			Annotations(annotate.In("recipe")),
		field.String("ingredients_fr").
			Optional().
			Nillable().
			Comment("Generated ingredients declaration, French.").
			Annotations(annotate.In("recipe")),
		field.Float("portion_in_grams").
			Optional().
			Nillable().
			Comment("Portion size in grams.").
			Annotations(annotate.In("recipe")),
		field.Float("recipe_grams_yield").
			Optional().
			Nillable().
			Comment("Grams one batch of the recipe yields.").
			Annotations(annotate.In("recipe")),
	}
}

// Edges of a product: its units and food, and its join rows, shown as ids or entries.
func (Product) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("unit_of_measure", UnitOfMeasure.Type).
			Field("unit_of_measure_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("uom_base", UnitOfMeasure.Type).
			Field("uom_base_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("food", Food.Type).
			Field("food_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("allergens", ProductAllergen.Type).
			Comment("Allergens of the product.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.Entries("allergens").SingleOnly()),
		edge.To("tags", ProductTag.Type).
			Comment("Ids of the product's tags.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("tag_ids", "tag_id").SingleOnly()),
		edge.To("banned_countries", ProductBannedCountry.Type).
			Comment("Countries the material may not come from.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("banned_country_ids", "country_id").In("material")),
		edge.To("substitutes", ProductSubstitute.Type).
			Comment("Products that can replace the material.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("substitute_product_ids", "substitute_id").In("material")),
		edge.To("suppliers", ProductSupplier.Type).
			Comment("Suppliers of the material.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("supplier_ids", "supplier_id").In("material")),
		edge.To("byproducts", ProductByproduct.Type).
			Comment("Products the recipe also yields.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("byproduct_product_ids", "byproduct_id").In("recipe")),
		edge.To("qc_checkpoints", ProductQCCheckpoint.Type).
			Comment("QC checkpoints of the recipe's batches.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("qc_checkpoint_ids", "qc_checkpoint_id").In("recipe")),
		edge.To("recipe_steps", RecipeStep.Type).
			Comment("The recipe's routing: its operations in order (internal).").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Hooks derive kind from product_type and keep the lots' copies of the name in step.
func (Product) Hooks() []ent.Hook {
	return []ent.Hook{hooks.ProductKind(), hooks.PropagateProductName()}
}

// Indexes back filters and sorts; codes are unique per account.
func (Product) Indexes() []ent.Index {
	return append(tenantIndexes("name", "product_type", "created_at", "updated_at",
		"unit_of_measure_id", "uom_base_id", "food_id"),
		index.Fields("account_id", "product_code").Unique(),
	)
}

// Annotations expose products at /products, read-only.
func (Product) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("products", "product_id", annotate.Catalog, annotate.ReadOnlyOps...).
			Emits("created", "updated", "deleted").
			Updated().
			Group("material", "kind", "material", "Material fields: populated only when kind is material.").
			Group("recipe", "kind", "recipe", "Recipe fields: populated only when kind is recipe.").
			Describe("Products: materials and recipes. Read-only; products are written in the web application."),
	}
}
