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
