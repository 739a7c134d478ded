import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { isMadePage } from '../db/paging.js';

/**
 * A page's items let go of once its bytes are made. A request that waits on the database (PostgreSQL's pool: 50 requests
 * in flight for 10 connections) holds promises made before the wait, which V8 has often promoted to the old generation
 * by the time they resolve with the page. A dead old object that points at young ones keeps them alive through every
 * scavenge until the next mark-compact: the page's rows, items and strings were copied and then promoted, 800 KB a
 * scavenge, and the page of 100 cost 2.4 times the naive server's CPU (bench/README.md, 2026-11-30). Emptying the
 * page's `data` once serialized leaves those promises pointing at an empty array. Only pages made by db/paging.ts's
 * pageOf are emptied: their items are the request's own.
 */
const SERVED_ITEMS = Symbol('servedItems');
type ServingReply = FastifyReply & { [SERVED_ITEMS]?: unknown[] };

export default fp(async function servedPages(app) {
  app.addHook('preSerialization', function rememberPageItems(_request, reply: ServingReply, payload, done) {
    if (isMadePage(payload)) reply[SERVED_ITEMS] = payload.data;
    done(null, payload);
  });
  app.addHook('onSend', function releasePageItems(_request, reply: ServingReply, payload, done) {
    const items = reply[SERVED_ITEMS];
    if (items !== undefined) {
      items.length = 0;
      reply[SERVED_ITEMS] = undefined;
    }
    done(null, payload);
  });
});
