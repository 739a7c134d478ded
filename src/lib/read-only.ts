import type { FastifyRequest } from 'fastify';
import { errors } from './errors.js';

/**
 * A preValidation hook refusing server-managed fields with a 400 that says they are read-only
 * (rather than the generic "not a known field"), each named.
 */
export function rejectReadOnly(fields: readonly string[], reason = 'is read-only') {
  return async function readOnlyGuard(request: FastifyRequest) {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const sent = fields.filter((field) => Object.hasOwn(body, field));
    if (sent.length === 0) return;
    const data = sent.map((field) => ({ path: `body.${field}`, message: reason }));
    throw errors.badRequest(sent.length === 1 ? `body.${sent[0]} ${reason}` : `${sent.length} fields are read-only`, data);
  };
}
