package ent

// OpenTxs is how many transactions TxOf holds a Tx for.
func OpenTxs() int {
	n := 0
	bound.Range(func(any, any) bool { n++; return true })
	return n
}

// ReuseHolders is reuseHolders.
var ReuseHolders = reuseHolders
