import * as net from 'node:net';

/**
 * A port on 127.0.0.1 that was free a moment ago (the kernel's pick for port 0). Another process can
 * still take it before the caller binds it.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
