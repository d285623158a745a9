import type { GraphQLSchema } from 'graphql';
import { Upload } from 'graphql-upload-ts';
import { resourceRoutes, type RestResource } from './resource.js';
import type { RestRoute } from './route.js';

const FILE = 'uuid originalName mimeType extension size usedAt file createdAt updatedAt';

/** Files: no batch destroy (spec), and no JSON create — they arrive as `multipart/form-data` uploads. */
export const files: RestResource = { path: '/files', name: 'File', pluralName: 'Files', fields: FILE, without: ['batch'] };

/** `files[]` parts of a multipart body (see multipart.ts), as the `Upload` values of `uploadFiles`. */
const uploadsOf = (body: unknown): Upload[] =>
  [(body as Record<string, unknown> | undefined)?.files ?? []].flat().filter((item): item is Upload => item instanceof Upload);

/** POST /files (multipart, `files[]`) → uploadFiles; the public download is src/files/file-download.route.ts. */
export function fileRoutes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const upload: RestRoute = {
    method: 'post',
    path: files.path,
    status: 201,
    document: `mutation UploadFiles($files: [Upload!]!) { result: uploadFiles(files: $files) { ${FILE} } }`,
    variables: (req) => ({ files: uploadsOf(req.body) }),
  };
  const isJsonCreate = (route: RestRoute) => route.method === 'post' && route.path === files.path;
  return [upload, ...resourceRoutes(files, schema, publicBaseUrl).filter((route) => !isJsonCreate(route))];
}
