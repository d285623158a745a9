import { type ApolloServer, type BaseContext, type ContextFunction, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { noteErrorCodes } from '../http/request-record.js';

const TOO_LARGE = 'RESPONSE_TOO_LARGE';

/** The one error a response above the size cap becomes. */
export function tooLargeBody(maxBytes: number): string {
  const message = `The response would exceed ${maxBytes} bytes. Ask for fewer rows with first: or fewer fields.`;
  return JSON.stringify({ errors: [{ message, extensions: { code: TOO_LARGE } }] });
}

/**
 * Apollo Server behind Express, as `@as-integrations/express5` wires it, plus the response size cap
 * (GRAPHQL_MAX_RESPONSE_BYTES) measured on the JSON text Apollo has already written: checking it in
 * a plugin meant serialising every response twice. Expects the JSON body parsed before it.
 */
export function graphqlHandler<Context extends BaseContext>(
  apollo: ApolloServer<Context>,
  context: ContextFunction<[{ req: Request; res: Response }], Context>,
  maxResponseBytes: number,
  /** Awaited before anything is written: a rejection goes to the error handlers instead. */
  beforeAnswer: (res: Response) => Promise<void> = async () => {},
): RequestHandler {
  apollo.assertStarted('graphqlHandler()');
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    const query = req.url.indexOf('?');
    const request: HTTPGraphQLRequest = { method: req.method.toUpperCase(), headers, search: query < 0 ? '' : req.url.slice(query), body: req.body };
    const response = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest: request, context: () => context({ req, res }) });
    await beforeAnswer(res);
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      let text = response.body.string;
      let bytes = Buffer.byteLength(text);
      if (bytes > maxResponseBytes) {
        text = tooLargeBody(maxResponseBytes);
        bytes = Buffer.byteLength(text);
        res.statusCode = 400;
        noteErrorCodes(res, [TOO_LARGE]);
      }
      res.setHeader('content-length', bytes);
      res.end(text);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
