import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * Scalar API Reference (MIT), its self-contained browser build: no CDN, nothing fetched at run
 * time. The package does not export the file, so it is found next to the package's main module.
 */
export function apiReferenceScriptSource(projectRoot: string): string {
  return join(dirname(createRequire(join(projectRoot, 'package.json')).resolve('@scalar/api-reference')), 'browser', 'standalone.js');
}
/** The file name the deployed function finds the script under, next to its bundle. */
export const API_REFERENCE_SCRIPT_FILE = 'api-reference.js';

/**
 * Where the script is: next to the bundle on Lambda (the construct copies it there), in the
 * project's dependencies everywhere else (the local server runs from the project root).
 */
function scriptPath(): string {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  if (taskRoot) return join(taskRoot, API_REFERENCE_SCRIPT_FILE);
  return apiReferenceScriptSource(resolve('.'));
}

let script: { text: string; gzipBase64: string } | undefined;

/** Read and compressed once per container: 4 MB of script is not gzipped on every request. */
export function apiReferenceScript(): { text: string; gzipBase64: string } {
  if (!script) {
    const text = readFileSync(scriptPath(), 'utf8');
    script = { text, gzipBase64: gzipSync(text, { level: 9 }).toString('base64') };
  }
  return script;
}

/**
 * The page: the script renders /openapi.json. Telemetry, web fonts and the link to Scalar's hosted
 * client are off, so the page talks to this API only.
 */
export function apiReferencePage(scriptPathname: string, documentPathname: string): string {
  const configuration = JSON.stringify({ telemetry: false, withDefaultFonts: false, hideClientButton: true });
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Merchant Analytics API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="${documentPathname}" data-configuration='${configuration}'></script>
    <script src="${scriptPathname}"></script>
  </body>
</html>
`;
}
