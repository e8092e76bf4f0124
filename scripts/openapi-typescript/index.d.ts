/** The TypeScript declarations (paths, components, operations) of an OpenAPI 3.1 document. */
export function declarationsOf(document: object): Promise<string>;
