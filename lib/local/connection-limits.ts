import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections from one client address. */
  perAddress: number;
  /** Open connections in all. */
  total: number;
  /** How long a connection must have been idle before it may be closed to make room. */
  minIdleMs: number;
}

interface Connection {
  client: Client;
  /** Requests received on it whose answer is not finished yet. */
  inProgress: number;
  /** When it last became idle (opened, or finished its last answer). */
  idleSince: number;
  /** Opened past a bound with nothing to make room: its first request is answered 503 and it is closed. */
  surplus: boolean;
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
 * per-address bound) or of any address (past the total) is closed to make room, if it has been
 * idle for `minIdleMs` at least: a flood of silent connections evicts its own oldest first, and a
 * client sending a request is served even from the flooding address. When nothing has been idle
 * that long (a burst of requests, each on a new connection), the new connection is still taken,
 * as surplus: its request is answered 503 with Retry-After and the connection closed, so a client
 * sees an answer it can act on rather than a reset. Past twice the total, a connection is refused.
 *
 * Requests are seen through the server's `request` event: Node parses connections natively, so
 * listening for a socket's data would miss what it reads.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): { isSurplus(socket: Socket): boolean } {
  const connections = new Map<Socket, Connection>();
  const clients = new Map<string, Client>();
  /** Every idle connection, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();

  const setIdle = (socket: Socket, connection: Connection) => {
    connection.idleSince = Date.now();
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
  /** Closes the longest idle of `candidates` if it has been idle long enough; false when none has. */
  const evictLongestIdle = (candidates: Set<Socket>): boolean => {
    const victim = candidates.values().next().value;
    if (!victim || Date.now() - connections.get(victim)!.idleSince < limits.minIdleMs) return false;
    forget(victim);
    victim.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // Already closed by its client: nothing to count.
    if (address === undefined) return void socket.destroy();
    if (connections.size >= 2 * limits.total) return void socket.destroy();
    const client = clients.get(address) ?? { address, open: 0, idle: new Set<Socket>() };
    const room = (client.open < limits.perAddress || evictLongestIdle(client.idle)) && (connections.size < limits.total || evictLongestIdle(idle));
    clients.set(address, client);
    client.open++;
    const connection: Connection = { client, inProgress: 0, idleSince: 0, surplus: !room };
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

  return { isSurplus: (socket) => connections.get(socket)?.surplus === true };
}
