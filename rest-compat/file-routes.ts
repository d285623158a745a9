import type { GraphQLSchema } from 'graphql';
import { Upload } from 'graphql-upload-ts';
import { buildOperation } from './operation.js';
import { resourceRoutes } from './resource.js';
import { files } from './resources.js';
import type { RestRoute } from './route.js';
import { fields } from './selection.js';

/** `files[]` parts of a multipart body (see multipart.ts), as the `Upload` values of `uploadFiles`. */
const uploadsOf = (body: unknown): Upload[] =>
  [(body as Record<string, unknown> | undefined)?.files ?? []].flat().filter((item): item is Upload => item instanceof Upload);

/** POST /files (multipart, `files[]`) → uploadFiles; the public download is src/files/file-download.route.ts. */
export function fileRoutes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const upload: RestRoute = {
    method: 'post',
    path: files.path,
    status: 201,
    // One file uploaded: its record (several have no one address).
    location: `${files.path}/:uuid`,
    document: buildOperation(schema, {
      type: 'mutation',
      name: 'UploadFiles',
      route: `POST ${files.path}`,
      fields: [{ field: 'uploadFiles', alias: 'result', selection: fields(files.fields) }],
    }),
    variables: (req) => ({ files: uploadsOf(req.body) }),
  };
  return [upload, ...resourceRoutes(files, schema, publicBaseUrl)];
}
