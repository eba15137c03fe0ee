import { createServer } from 'node:net';
import { StartupError } from './lifecycle';

/**
 * Fails, before anything is started or written, when one of the ports is taken, naming the
 * variable that moves it. A port can still be taken between this check and its use; the server
 * binds it before writing anything, so that race cannot leave a half-done first start either.
 */
export async function assertPortsFree(host: string, ports: ReadonlyArray<{ port: number; variable: string; what: string }>): Promise<void> {
  for (const [i, { port, variable }] of ports.entries()) {
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new StartupError(`${variable}=${port} is not a port number.`);
    const same = ports.find((other, j) => j < i && other.port === port && port !== 0);
    if (same) throw new StartupError(`${same.variable} and ${variable} are both ${port}; they must differ.`);
  }
  for (const { port, variable, what } of ports) {
    if (!(await isFree(host, port))) throw new StartupError(`Port ${port} (${what}) is in use. Set ${variable} to use another.`);
  }
}

function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
