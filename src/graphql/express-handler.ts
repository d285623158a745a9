import { type ApolloServer, type BaseContext, type ContextFunction, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { noteErrorCodes } from '../http/request-record.js';
import { sendSlices } from '../http/send-slices.js';
import type { ParkedAnswers } from './released-answers.js';
import { RESPONSE_TOO_LARGE, tooLargeBody } from './response-size.js';

/**
 * Apollo Server behind Express, as `@as-integrations/express5` wires it. An answer over the response
 * budget (RESPONSE_MAX_BYTES) arrives as the one error `stringifyAndRelease` (released-answers.ts)
 * wrote instead of it, and is answered with 400 like every other refused operation; a large answer
 * arrives parked (released-answers.ts) and is sent slice by slice. Expects the JSON body parsed before it.
 */
export function graphqlHandler<Context extends BaseContext>(
  apollo: ApolloServer<Context>,
  context: ContextFunction<[{ req: Request; res: Response }], Context>,
  maxResponseBytes: number,
  parked: ParkedAnswers,
): RequestHandler {
  apollo.assertStarted('graphqlHandler()');
  const tooLarge = tooLargeBody(maxResponseBytes);
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    const query = req.url.indexOf('?');
    const request: HTTPGraphQLRequest = { method: req.method.toUpperCase(), headers, search: query < 0 ? '' : req.url.slice(query), body: req.body };
    const response = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest: request, context: () => context({ req, res }) });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      const text = response.body.string;
      const large = parked.take(text);
      if (large) {
        res.setHeader('content-length', large.bytes);
        await sendSlices(res, large.slices);
        return;
      }
      if (text === tooLarge) {
        res.statusCode = 400;
        noteErrorCodes(res, [RESPONSE_TOO_LARGE]);
      }
      res.setHeader('content-length', Buffer.byteLength(text));
      res.end(text);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
