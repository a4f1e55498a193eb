-- create index "product_lots_lot_number_trgm" to table: "product_lots"
CREATE INDEX `product_lots_lot_number_trgm` ON `product_lots` (`lot_number`);
