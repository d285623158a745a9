import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { jsonWithin } from '../http/json-text.js';
import { RESPONSE_TOO_LARGE, tooLargeBody } from './response-size.js';

/*
 * Why a GraphQL request lets go of its data as soon as its answer is text: Apollo's gateway path (which
 * apollo-executor.ts uses for compiled execution) builds, per request, an object with a `status` getter
 * and setter that close over the request (`makeGatewayGraphQLRequestContext`). V8 allocates accessor
 * pairs in the old generation, so every finished request (its context, loaders and result) stays
 * reachable from an old object until the next full GC, and each young-generation collection copies and
 * promotes it. On the 50-row list page (`node --trace-gc-nvp` under wrk, by hand) that was 6 MB promoted
 * per scavenge and scavenges of 20 ms instead of 1.
 */

/** Empties the loaders of a request whose answer is complete: nothing reads them after `willSendResponse`. */
export const releaseLoadedRows: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue }) {
        contextValue.loaders?.release();
      },
    };
  },
};

/**
 * Apollo's `stringifyResult`: the JSON text, written in slices within `maxBytes` (http/json-text.ts),
 * after which the result's tree is cut loose (Apollo reads nothing of it later). An answer refused
 * for its size while it was built (a RESPONSE_TOO_LARGE error), or found over the budget while it is
 * written, becomes that one error (express-handler.ts answers it with 400).
 */
export function stringifyAndRelease(maxBytes: number): (result: FormattedExecutionResult) => Promise<string> {
  const tooLarge = tooLargeBody(maxBytes);
  return async (result) => {
    const refused = result.errors?.some((error) => error.extensions?.code === RESPONSE_TOO_LARGE);
    const text = refused ? undefined : await jsonWithin(result, maxBytes);
    const data = result.data as Record<string, unknown> | null | undefined;
    if (data) for (const field of Object.keys(data)) delete data[field];
    return text ?? tooLarge;
  };
}
