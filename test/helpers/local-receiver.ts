import { type RequestListener, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 for one test (a webhook receiver): `handler` answers each request; closed,
 * open connections and all, after the test. Its `/hook` URL.
 */
export async function localReceiver(t: { after(fn: () => Promise<void>): void }, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}
