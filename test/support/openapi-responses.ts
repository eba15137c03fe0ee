import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../lib/openapi/build-document';
import { matchRoute } from '../../lib/local/route-matcher';
import { publicRouteTable } from '../../lib/public-routes';
import { routeTable } from '../../lib/routes';

/*
 * Holds every response the end-to-end suite receives to the OpenAPI document the service
 * serves: the status must be one the operation documents, and a JSON body must match its schema.
 * Answers of the front door itself (no such path, wrong method) belong to no operation and are
 * not checked.
 */

const document = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...document, $id: 'openapi.json' });
const validators = new Map<string, ValidateFunction>();
const served = [...routeTable, ...publicRouteTable];
const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export function assertDocumentedResponse(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const match = matchRoute(served, method, new URL(url, 'http://localhost').pathname);
  if (match.kind !== 'found') return;
  const { path } = match.route;
  const operation = document.paths[path]![method.toLowerCase()]!;
  const response = operation.responses[String(status)];
  if (!response) {
    throw new Error(`${method} ${path} answered ${status}, a status its OpenAPI operation does not document (${Object.keys(operation.responses).join(', ')}): ${JSON.stringify(body)?.slice(0, 500)}`);
  }
  if (!contentType?.startsWith('application/json')) return;
  const key = `${path} ${method} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi.json#/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema` });
    validators.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${method} ${path} ${status}: the body does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)?.slice(0, 1000)}`);
  }
}
