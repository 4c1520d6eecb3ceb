// Listening on loopback for the test servers that stand in for a remote API: a free port (or the one asked for) on
// 127.0.0.1, and a close that also ends the connections a client keeps open, so a test never waits on keep-alive.
import type { Server } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface Listening {
  readonly port: number;
  /** Destroys every open connection, then closes the server. */
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server, port = 0): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
