// The pieces of certhub's /api/spec (site/openapi.ts) that the paths other modules describe are made
// of: the security requirement, the shared error answers and parameters, the response makers.
export interface SpecParts {
  admin: object;
  adminErrors: object;
  badParameter: object;
  bodyErrors: object;
  errorResponse: (description: string) => object;
  jsonResponse: (description: string, schema: object) => object;
  nameParameter: object;
}
