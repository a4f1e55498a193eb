package ent

// OpenTxs is how many transactions TxOf holds a Tx for.
func OpenTxs() int {
	n := 0
	bound.Range(func(any, any) bool { n++; return true })
	return n
}

// ReuseHolders is reuseHolders.
var ReuseHolders = reuseHolders

// CheckedTxs is how many transactions keep rows their reference checks read.
func CheckedTxs() int {
	n := 0
	checked.Range(func(any, any) bool { n++; return true })
	return n
}

// MaxShapes is maxShapes.
const MaxShapes = maxShapes

// CompiledReads is what the compiled reads of Tag, Allergen and Country hold: the
// statements of the shapes compiled, and how many shapes could not be.
func CompiledReads(label string) (statements []string, failed int) {
	return compiled(map[string]*compiledReads{"tag": &readsTag, "allergen": &readsAllergen, "country": &readsCountry}[label])
}

// CompiledLists is CompiledReads of the lists of Tag (Shaped).
func CompiledLists(label string) (statements []string, failed int) {
	return compiled(map[string]*compiledReads{"tag": &listsTag}[label])
}

func compiled(r *compiledReads) (statements []string, failed int) {
	if p := r.shapes.Load(); p != nil {
		for _, s := range *p {
			if s.ok {
				statements = append(statements, s.text)
			} else {
				failed++
			}
		}
	}
	return statements, failed
}
