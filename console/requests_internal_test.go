package console

import "testing"

// hideCosts replaces the value of every cost member, at any depth and
// however its name is escaped, and keeps everything else as it was, in its
// order.
func TestHideCosts(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{`{"a":[1,[{"cost":{"x":[1,2]},"k":"v"}],"s<&>é"],"\u0063ost":1e3,"price":null,"n":-0.5e-7,"t":true,"f":false,"e":{},"z":[]}`,
			`{"a":[1,[{"cost":"hidden","k":"v"}],"s<&>é"],"cost":"hidden","price":"hidden","n":-0.5e-7,"t":true,"f":false,"e":{},"z":[]}`, 3},
		{` [ {"tax1": true, "name": "cost"}, {"subtotal": "1.00"} ] `, `[{"tax1":"hidden","name":"cost"},{"subtotal":"hidden"}]`, 2},
		{`"cost"`, `"cost"`, 0},
		{`12345678901234567890`, `12345678901234567890`, 0},
		{`{"data":{"costing":"1","operations_cost":"2","discount_rate":3}}`, `{"data":{"costing":"1","operations_cost":"hidden","discount_rate":"hidden"}}`, 2},
	} {
		got, n, err := hideCosts([]byte(tc.in))
		if err != nil || string(got) != tc.want || n != tc.n {
			t.Errorf("hideCosts(%s) = %s, %d, %v; want %s, %d", tc.in, got, n, err, tc.want, tc.n)
		}
	}
	if _, _, err := hideCosts([]byte(`{"cost":`)); err == nil {
		t.Error("a cut body is walked")
	}
}
