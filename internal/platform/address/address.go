// Package address is the postal address the API embeds in suppliers,
// customers, shipping addresses and documents (spec "Address"): five optional
// parts, always shown as an object, written whole.
package address

// Limits of the parts (spec "Address": line1, line2, city and state at most
// 100 characters; postal_code at most 20).
const (
	MaxPart       = 100
	MaxPostalCode = 20
)

// Address is an embedded address. A record saved without one has every part
// nil; writing one sets every part, so an omitted part becomes nil.
type Address struct {
	City       *string `json:"city"`
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	PostalCode *string `json:"postal_code"`
	State      *string `json:"state"`
}

// IsZero reports whether no part is set.
func (a Address) IsZero() bool {
	return a.City == nil && a.Line1 == nil && a.Line2 == nil && a.PostalCode == nil && a.State == nil
}
