import Ajv2020 from 'ajv/dist/2020.js';

/** Validates response bodies against the schemas of an OpenAPI 3.1 document (for "every response validates"). */
export function createResponseValidator(document: any) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  return (path: string, method: string, status: number, body: unknown): string[] => {
    const operation = document.paths[path]?.[method.toLowerCase()];
    if (!operation) return [`no operation ${method} ${path}`];
    const response = operation.responses[String(status)];
    if (!response) return [`status ${status} not documented for ${method} ${path}`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return [];
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
    const validate = ajv.compile(rewritten);
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}
