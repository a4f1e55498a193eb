package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/shippingaddress"
)

// OneDefaultAddress refuses a second default shipping address of a customer
// with 409 DEFAULT_ADDRESS_EXISTS (spec Customers). The partial unique index
// shipping_addresses_one_default holds the rule under concurrent writers too;
// this check gives the refusal its code.
func OneDefaultAddress() ent.Hook {
	const oneDefaultIndex = "shipping_addresses_one_default"
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ShippingAddressFunc(func(ctx context.Context, m *gen.ShippingAddressMutation) (ent.Value, error) {
			if v, ok := m.IsDefault(); !ok || !v {
				return next.Mutate(ctx, m)
			}
			customer, ok := m.CustomerID()
			q := gen.ClientOf(m).ShippingAddress.Query().Where(shippingaddress.IsDefault(true))
			if id, isOne := m.ID(); isOne {
				old, err := m.OldCustomerID(ctx)
				if err != nil {
					return nil, err
				}
				customer, ok = old, true
				q.Where(shippingaddress.IDNEQ(id))
			}
			if ok {
				taken, err := q.Where(shippingaddress.CustomerID(customer)).Exist(ctx)
				if err != nil {
					return nil, err
				}
				if taken {
					// The answer the index declares on the schema
					// (annotate.Conflict), so that this check and the
					// index under concurrent writers refuse alike.
					conflict, declared := gen.UniqueConflict(oneDefaultIndex)
					if !declared {
						return nil, fmt.Errorf("shipping address: index %s declares no answer", oneDefaultIndex)
					}
					return nil, conflict
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdateOne)
}
