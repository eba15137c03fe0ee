import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections from one client address. */
  perAddress: number;
  /** Open connections in all. */
  total: number;
}

interface Connection {
  client: Client;
  /** Requests received on it whose answer is not finished yet. */
  inProgress: number;
}

interface Client {
  address: string;
  open: number;
  /** Its idle connections, longest idle first. */
  idle: Set<Socket>;
}

/**
 * Bounds open connections, per client address and in all, so that a client holding connections
 * without using them cannot lock the others out. A connection is idle while no request is in
 * progress on it: not yet sent in full, or a kept-alive one waiting for the next. When a new
 * connection would pass a bound, the longest idle connection of that address (past the
 * per-address bound) or of any address (past the total) is closed to make room; only when none
 * is idle is the new one refused. So a flood of silent connections evicts its own oldest first,
 * and a client sending a request at once is served even from the flooding address.
 *
 * Requests are seen through the server's `request` event: Node parses connections natively, so
 * listening for a socket's data would miss what it reads.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  const connections = new Map<Socket, Connection>();
  const clients = new Map<string, Client>();
  /** Every idle connection, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();

  const setIdle = (socket: Socket, connection: Connection) => {
    idle.add(socket);
    connection.client.idle.add(socket);
  };
  const setBusy = (socket: Socket, connection: Connection) => {
    idle.delete(socket);
    connection.client.idle.delete(socket);
  };
  /** Stops counting a connection; at once on eviction, so the next arrival in the same tick sees the room made. */
  const forget = (socket: Socket) => {
    const connection = connections.get(socket);
    if (!connection) return;
    connections.delete(socket);
    setBusy(socket, connection);
    if (--connection.client.open === 0) clients.delete(connection.client.address);
  };
  /** Closes the longest idle of `candidates`; false when none is idle. */
  const evictLongestIdle = (candidates: Set<Socket>): boolean => {
    const victim = candidates.values().next().value;
    if (!victim) return false;
    forget(victim);
    victim.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // Already closed by its client: nothing to count.
    if (address === undefined) return void socket.destroy();
    const client = clients.get(address) ?? { address, open: 0, idle: new Set<Socket>() };
    if (client.open >= limits.perAddress && !evictLongestIdle(client.idle)) return void socket.destroy();
    if (connections.size >= limits.total && !evictLongestIdle(idle)) return void socket.destroy();
    clients.set(address, client);
    client.open++;
    const connection: Connection = { client, inProgress: 0 };
    connections.set(socket, connection);
    setIdle(socket, connection);
    socket.once('close', () => forget(socket));
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const connection = connections.get(socket);
    if (!connection) return;
    connection.inProgress++;
    setBusy(socket, connection);
    // `close` follows every answer, finished or cut short; the connection is idle again after the last.
    response.once('close', () => {
      if (--connection.inProgress === 0 && connections.has(socket)) setIdle(socket, connection);
    });
  });
}
