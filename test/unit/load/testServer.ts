import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on loopback, started and closed by the test that owns it. */
export interface TestServer {
  port: number;
  url: string;
  server: http.Server;
  /** Open TCP connections right now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    server,
    connections: () => new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that nothing listens on: bind one, then close it. */
export async function closedPort(): Promise<number> {
  const s = await startServer(() => {});
  await s.close();
  return s.port;
}

/** Polls until `check` holds or `ms` elapse; returns the last value seen. */
export async function waitFor<T>(read: () => Promise<T>, check: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!check(value) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    value = await read();
  }
  return value;
}
