/**
 * The benchmark's store process: the local server's own dynalite (`startEmbeddedDynamo`: in
 * memory, with the local runtime's fixes to it), in a process of its own as DynamoDB is in AWS, on
 * a port the OS picks, reported on stdout. It exits when its stdin closes, so it cannot outlive a
 * benchmark that crashed or was interrupted.
 */
import { startEmbeddedDynamo } from '../lib/local/dynamodb';

const store = await startEmbeddedDynamo();
process.stdout.write(`listening on ${store.port}\n`);
process.stdin.on('end', () => process.exit(0)).resume();
