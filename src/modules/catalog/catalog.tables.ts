/** Row types of the catalog's tables (products, prices, invoice and subscription templates), composed into DB (db/schema.ts). */
export type CatalogTables = Record<never, never>;
