import { randomUUID } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { jsonSlicesWithin, type JsonSlices } from '../http/json-text.js';
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

/** What an answer of more than one slice stands in for in Apollo's string: this prefix and a fresh id. */
const PARKED = '\u0000parked-answer:';

/**
 * Answers of more than one slice, kept as written for the HTTP handler (express-handler.ts) to send
 * slice by slice: Apollo wants one string, and joining and encoding an answer of several MB in one go
 * would hold the event loop for tens of milliseconds. Each is taken once, by the request that made it.
 */
export class ParkedAnswers {
  private readonly answers = new Map<string, JsonSlices>();

  park(answer: JsonSlices): string {
    const marker = `${PARKED}${randomUUID()}`;
    this.answers.set(marker, answer);
    return marker;
  }

  /** The answer `text` stands for, once; undefined when `text` is the answer itself. */
  take(text: string): JsonSlices | undefined {
    if (!text.startsWith(PARKED)) return undefined;
    const answer = this.answers.get(text);
    this.answers.delete(text);
    return answer;
  }

  get size(): number {
    return this.answers.size;
  }
}

/**
 * Apollo's `stringifyResult`: the JSON text, written in slices within `maxBytes` (http/json-text.ts),
 * after which the result's tree is cut loose (Apollo reads nothing of it later). An answer refused
 * for its size while it was built (a RESPONSE_TOO_LARGE error), or found over the budget while it is
 * written, becomes that one error (express-handler.ts answers it with 400). An answer of more than
 * one slice is parked in `parked` when given, its marker returned in its place.
 */
export function stringifyAndRelease(maxBytes: number, parked?: ParkedAnswers): (result: FormattedExecutionResult) => Promise<string> {
  const tooLarge = tooLargeBody(maxBytes);
  return async (result) => {
    const refused = result.errors?.some((error) => error.extensions?.code === RESPONSE_TOO_LARGE);
    const answer = refused ? undefined : await jsonSlicesWithin(result, maxBytes);
    const data = result.data as Record<string, unknown> | null | undefined;
    if (data) for (const field of Object.keys(data)) delete data[field];
    if (!answer) return tooLarge;
    return parked && answer.slices.length > 1 ? parked.park(answer) : answer.slices.join('');
  };
}
