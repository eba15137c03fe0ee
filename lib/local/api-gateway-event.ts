import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface IncomingHttpRequest {
  method: string;
  /** The request target as sent: path plus optional query string. */
  url: string;
  /** Raw header pairs in arrival order, as Node's `rawHeaders` gives them. */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
  protocol: string;
}

/** Content types API Gateway passes through as text; anything else arrives base64-encoded. */
const TEXT_TYPES = /^(text\/|application\/(json|.*\+json|xml|.*\+xml|x-www-form-urlencoded|javascript))/i;

/**
 * Builds the API Gateway HTTP API (payload 2.0) event for a request, as the real service does:
 * lower-cased header names with repeats comma-joined, cookies split out, `rawPath` and
 * `rawQueryString` untouched, repeated query keys comma-joined, optional keys omitted when empty.
 */
export function toApiGatewayEvent(
  request: IncomingHttpRequest,
  route: { method: string; path: string; pathParameters: Record<string, string> },
  meta: { requestId: string; now: Date; domainName: string },
): APIGatewayProxyEventV2 {
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : request.url.slice(queryStart + 1);

  // Maps, then Object.fromEntries: a name such as `__proto__` becomes an ordinary key, as in the
  // JSON event API Gateway sends, instead of an assignment to the object's prototype.
  const headerMap = new Map<string, string>();
  const cookies: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] as string).toLowerCase();
    const value = request.rawHeaders[i + 1] as string;
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((c) => c.trim()).filter(Boolean));
      continue;
    }
    const previous = headerMap.get(name);
    headerMap.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  const headers: Record<string, string> = Object.fromEntries(headerMap);

  const queryMap = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    const previous = queryMap.get(key);
    queryMap.set(key, previous === undefined ? value : `${previous},${value}`);
  }
  const queryStringParameters: Record<string, string> = Object.fromEntries(queryMap);

  const hasBody = request.body.length > 0;
  // A body is passed as text only when it is text: one that is not valid UTF-8 arrives
  // base64-encoded whatever its type, so the handler sees the bytes as sent (and refuses them),
  // not a decoding that replaced them with U+FFFD and changed their size.
  const isText = TEXT_TYPES.test(headers['content-type'] ?? 'application/json') && isUtf8(request.body);
  const routeKey = `${route.method} ${route.path}`;

  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(queryStringParameters).length > 0 ? { queryStringParameters } : {}),
    ...(Object.keys(route.pathParameters).length > 0 ? { pathParameters: route.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: meta.domainName,
      domainPrefix: meta.domainName.split('.')[0] ?? meta.domainName,
      http: {
        method: request.method,
        path: rawPath,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: meta.requestId,
      routeKey,
      stage: '$default',
      time: clfTime(meta.now),
      timeEpoch: meta.now.getTime(),
    },
    ...(hasBody ? { body: isText ? request.body.toString('utf8') : request.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !isText,
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The Common Log Format timestamp API Gateway puts in `requestContext.time`. */
function clfTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}
