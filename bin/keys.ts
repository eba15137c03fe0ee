/**
 * `npm run keys -- <command>`: mint, revoke and list API keys, locally or against a deployed
 * table (`--table <name>`). The raw key is printed once, at creation, and never stored.
 */
import { parseArgs } from 'node:util';
import { connectStore } from '../lib/local/store-connection';
import { parseKeyExpiry } from '../shared/auth/key-expiry';

const USAGE = `Usage:
  npm run keys -- create --pixel <id> --scopes <csv> [--name <s>] [--expires-at <iso>]
                         [--rate-limit <n>/<window>] [--events-rate-limit <n>/<window>] [--cost-limit <units>/<window>] [--json] [--table <name>]
  npm run keys -- revoke <apiKeyPk> [--json] [--table <name>]
  npm run keys -- list --pixel <id> [--json] [--table <name>]
Scopes: analytics:read, dashboards:read, dashboards:write, events:write, account:read, account:write,
        costs:read, costs:write
        (legacy db_query and attribution_query are accepted and mean analytics:read)
Rate limits: requests per window, like 100/1m, 10/s, 5000/1h; defaults 1200/1m (API) and 6000/1m (events API)`;

function fail(message: string, code = 2): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(code);
}

/** A value given that cannot be used: one line saying why; the usage would only bury it. */
function refuse(message: string): never {
  console.error(message);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      pixel: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      'expires-at': { type: 'string' },
      'rate-limit': { type: 'string' },
      'events-rate-limit': { type: 'string' },
      'cost-limit': { type: 'string' },
      table: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
const [command, ...rest] = positionals;
if (values.help || !command) fail('', values.help ? 0 : 2);
// Checked before the store is opened, so a mistyped expiry touches nothing.
if (values['expires-at'] !== undefined) {
  const expiry = parseKeyExpiry(values['expires-at'], new Date());
  if ('problem' in expiry) refuse(expiry.problem);
}

const store = await connectStore({ table: values.table });
// Imported after the connection is set up: the repositories build their client from the environment.
const { mintApiKey, effectiveRateLimits, InvalidKeyRequestError } = await import('../shared/auth/api-key-service');
const { listApiKeys, revokeApiKey } = await import('../shared/store/api-key-repository');

try {
  switch (command) {
    case 'create': {
      if (!values.pixel) fail('create needs --pixel');
      if (!values.scopes) fail('create needs --scopes');
      const scopes = values.scopes.split(',').map((s) => s.trim()).filter(Boolean);
      const { apiKey, record } = await mintApiKey({
        pixelId: values.pixel,
        scopes,
        name: values.name,
        expiresAt: values['expires-at'],
        rateLimit: values['rate-limit'],
        eventsRateLimit: values['events-rate-limit'],
        costLimit: values['cost-limit'],
      });
      if (values.json) {
        console.log(JSON.stringify({ apiKey, apiKeyPk: record.apiKeyPk, pixelId: record.pixelId, scopes: record.scopes }));
      } else {
        console.log(`Created key ${record.apiKeyPk} for pixel ${record.pixelId} (${store.description})`);
        console.log(`  scopes:  ${record.scopes.join(', ')}`);
        if (record.expiresAt) console.log(`  expires: ${record.expiresAt}`);
        const limits = effectiveRateLimits(record);
        console.log(`  rate limits: ${limits.api} (API), ${limits.events} (events API), ${limits.cost} cost units (analytics queries)`);
        console.log(`  API key (shown only now, store it safely): ${apiKey}`);
      }
      break;
    }
    case 'revoke': {
      const apiKeyPk = rest[0];
      if (!apiKeyPk) fail('revoke needs the apiKeyPk of the key');
      const revoked = await revokeApiKey(apiKeyPk, new Date());
      if (!revoked) {
        console.error(`No key with apiKeyPk ${apiKeyPk}`);
        process.exitCode = 1;
        break;
      }
      console.log(
        values.json
          ? JSON.stringify({ apiKeyPk, revokedAt: revoked.revokedAt })
          : `Revoked ${apiKeyPk} (pixel ${revoked.pixelId}) at ${revoked.revokedAt}`,
      );
      break;
    }
    case 'list': {
      if (!values.pixel) fail('list needs --pixel');
      const keys = (await listApiKeys(values.pixel)).map(({ keyHash: _hash, rateLimits: _own, ...key }) => ({ ...key, rateLimits: effectiveRateLimits({ rateLimits: _own }) }));
      if (values.json) console.log(JSON.stringify(keys));
      else if (keys.length === 0) console.log(`No keys for pixel ${values.pixel}`);
      else {
        for (const key of keys) {
          const state = key.revokedAt ? `revoked ${key.revokedAt}` : key.expiresAt ? `expires ${key.expiresAt}` : 'active';
          console.log(`${key.apiKeyPk}  …${key.hint}  ${key.scopes.join(',')}  ${state}  ${key.rateLimits.api} ${key.rateLimits.events} ${key.rateLimits.cost}  ${key.name}`);
        }
      }
      break;
    }
    default:
      fail(`Unknown command '${command}'`);
  }
} catch (error) {
  if (error instanceof InvalidKeyRequestError) fail(error.message);
  throw error;
} finally {
  await store.close();
}
