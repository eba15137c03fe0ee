import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { openApiDocument } from '../../lib/openapi/build-document';
import { publicRoutes } from '../../lib/public-routes';
import { apiReferencePage, apiReferenceScript } from '../../shared/http/docs-assets';
import { compressResponse } from '../../shared/http/middleware/compress-response';
import { requestIdHeader } from '../../shared/http/middleware/request-id';
import { jsonResponse } from '../../shared/http/response';

const { getOpenApiDocument, getApiReference, getApiReferenceScript } = publicRoutes;
const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

/**
 * The API's own description, without an API key: the OpenAPI document, and the reference page
 * that renders it. One function serves the public routes (lib/public-routes.ts).
 */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(requestIdHeader())
  .use(compressResponse())
  .handler(async (event) => {
    switch (event.routeKey) {
      case routeKey(getOpenApiDocument):
        return jsonResponse(200, openApiDocument(), { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
      case routeKey(getApiReference):
        return {
          statusCode: 200,
          headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=300' },
          body: apiReferencePage(getApiReferenceScript.path, getOpenApiDocument.path),
        };
      case routeKey(getApiReferenceScript): {
        const script = apiReferenceScript();
        const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400', vary: 'accept-encoding' };
        // Sent compressed whenever the client accepts it: 4 MB of script is 1 MB gzipped.
        if (/\bgzip\b/i.test(event.headers?.['accept-encoding'] ?? '')) {
          return { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: script.gzipBase64, isBase64Encoded: true };
        }
        return { statusCode: 200, headers, body: script.text };
      }
      default:
        return jsonResponse(404, { message: 'Not Found' });
    }
  });
