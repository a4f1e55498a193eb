package handlers_test

import "github.com/google/go-cmp/cmp"

func cmpDiff(want, got any) string { return cmp.Diff(want, got) }
