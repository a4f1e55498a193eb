-- The 200-line purchase order the order benchmarks post (docab.sh,
-- mechanisms.sh), as JSON: 200 lines over the first 20 materials of the
-- seeded test account :acct, from its supplier MILL.
-- psql -Atv acct=ID -f bench/order200.sql
WITH p AS (SELECT id FROM products WHERE account_id = :acct AND product_type IN ('RAW_MATERIAL', 'PACKAGING', 'MISCELLANEOUS') ORDER BY id LIMIT 20),
     n AS (SELECT row_number() OVER (ORDER BY id) - 1 AS i, id FROM p)
SELECT json_build_object(
	'supplier_id', (SELECT id FROM suppliers WHERE account_id = :acct AND supplier_code = 'MILL'),
	'lines', (SELECT json_agg(json_build_object('product_id', n.id, 'quantity', 3, 'cost', 1.25) ORDER BY g)
		FROM generate_series(0, 199) g JOIN n ON n.i = g % 20));
