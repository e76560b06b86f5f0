// Every site's /api/spec describes the operations routes every front has, and stays a valid
// OpenAPI document with them (certhub's is 3.0, the others 3.1).
import test from 'ava';
import { certhubOpenApi } from '../../actors/cert/site/openapi.js';
import { monitorOpenApi } from '../../actors/monitor/site/openapi.js';
import { qpoolOpenApi } from '../../actors/qpool/site/openapi.js';

interface Document {
  paths: Record<string, { get: { security?: object[]; responses: Record<string, unknown> } }>;
}

// The documents are plain JSON objects; the test reads them as such.
const documents = { certhub: certhubOpenApi('1.0.0'), monitor: monitorOpenApi('1.0.0'), qpool: qpoolOpenApi('1.0.0') } as Record<string, object>;

for (const [site, document] of Object.entries(documents)) {
  test(`${site}'s OpenAPI document has /healthz, /readyz and /metrics and is valid`, async (t) => {
    const { paths } = document as Document;
    t.deepEqual(Object.keys(paths['/readyz']!.get.responses).sort(), ['200', '503']);
    t.truthy(paths['/healthz']?.get.responses['200']);
    t.truthy(paths['/metrics']?.get.responses['200']);
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(document as Parameters<InstanceType<typeof Validator>['validate']>[0]);
    t.true(result.valid, JSON.stringify(result.errors));
  });
}

test("certhub's /metrics is documented as needing the admin key or the metrics token", (t) => {
  const metrics = (documents.certhub as Document).paths['/metrics']!.get;
  t.deepEqual(metrics.security, [{ adminKey: [] }, { metricsToken: [] }]);
  t.truthy(metrics.responses['401']);
});
