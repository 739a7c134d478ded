// TEMPORARY stub (the catalog's real repository replaces this file).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Access } from '../../lib/caller.js';

interface TemplateLike {
  id: string;
  memo: string;
  taxPercentage: number;
  currency: string;
  lineItems: { amount: number; description?: string; quantity: number }[];
}
export async function findPrice(
  _db: Kysely<DB>,
  _access: Access,
  _id: string,
): Promise<{ id: string; amount: number; currency: string; productId: string } | undefined> {
  return undefined;
}
export async function findInvoiceTemplate(_db: Kysely<DB>, _access: Access, _id: string): Promise<TemplateLike | undefined> {
  return undefined;
}
