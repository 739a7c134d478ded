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
declare module 'fastify' {
  interface FastifyReply {
    /** The items of the page this reply answers (a page pageOf made), until its bytes are made. */
    servedItems: unknown[] | null;
  }
}

export default fp(async function servedPages(app) {
  app.decorateReply('servedItems', null);
  app.addHook('preSerialization', function rememberPageItems(_request, reply, payload, done) {
    if (isMadePage(payload)) reply.servedItems = payload.data;
    done(null, payload);
  });
  app.addHook('onSend', function releasePageItems(_request, reply, payload, done) {
    const items = reply.servedItems;
    if (items !== null) {
      items.length = 0;
      reply.servedItems = null;
    }
    done(null, payload);
  });
});
