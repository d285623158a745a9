import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { clientAddress } from '../rate-limits/client-address.js';
import { enforce, TOO_MANY } from '../rate-limits/http-limits.js';
import type { RateLimitStore } from '../rate-limits/rate-limit.repository.js';
import { isOff, perMinute, type RateLimit } from '../rate-limits/rate-limiter.js';

export interface TokenLimits {
  /** Every token request of one address (TOKEN_RATE_LIMIT). */
  perAddress: number;
  /** Failed attempts for one client id from one address (TOKEN_FAILURE_LIMIT). */
  failuresPerClientAddress: number;
  /** Failed attempts from one address, whatever the client id (TOKEN_ADDRESS_FAILURE_LIMIT). */
  failuresPerAddress: number;
  /** Tokens issued to one client (TOKEN_CLIENT_LIMIT): only its secret's holder can spend these. */
  issuedPerClient: number;
}

/** Once the request is answered: a success takes back the failure hits and counts an issued token. */
export interface TokenAttempt {
  succeeded(): Promise<void>;
}

/** The client id a token request names, in the body or as the Basic user; hashed to bound the key. */
function claimedClientId(req: Request): string {
  const fromBody = (req.body as Record<string, unknown> | undefined)?.client_id;
  let claimed = typeof fromBody === 'string' ? fromBody : '';
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (!claimed && basic) claimed = Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '';
  return createHash('sha256').update(claimed).digest('base64url').slice(0, 22);
}

/**
 * The token endpoint's limits, shared by every process. Only failures count against a client id, and
 * always together with the address they came from: a flood of wrong secrets locks out its own
 * address (per client id, then for every client id), never the right secret sent from elsewhere.
 */
export class TokenThrottle {
  private readonly rules: Record<keyof TokenLimits, RateLimit>;

  constructor(
    private readonly store: RateLimitStore,
    limits: TokenLimits,
  ) {
    this.rules = {
      perAddress: perMinute('token:address', limits.perAddress),
      failuresPerClientAddress: perMinute('token:failed', limits.failuresPerClientAddress),
      failuresPerAddress: perMinute('token:failed-address', limits.failuresPerAddress),
      issuedPerClient: perMinute('token:issued', limits.issuedPerClient),
    };
  }

  /** Counts the attempt as a failure until it succeeds; throws TOO_MANY_REQUESTS past any limit. */
  async admit(req: Request, res: Response): Promise<TokenAttempt> {
    const address = clientAddress(req);
    const client = claimedClientId(req);
    await enforce(this.store, this.rules.perAddress, address, res);
    await this.refuseWhenIssuedUp(client, res);
    const failureKeys: [RateLimit, string][] = [
      [this.rules.failuresPerClientAddress, `${client}:${address}`],
      [this.rules.failuresPerAddress, address],
    ];
    for (const [rule, subject] of failureKeys) await enforce(this.store, rule, subject, res);
    return {
      succeeded: async () => {
        for (const [rule, subject] of failureKeys) if (!isOff(rule)) await this.store.refund(`${rule.name}:${subject}`);
        const issued = this.rules.issuedPerClient;
        if (!isOff(issued)) await this.store.hit(`${issued.name}:${client}`, issued.windowMs);
      },
    };
  }

  private async refuseWhenIssuedUp(client: string, res: Response): Promise<void> {
    const rule = this.rules.issuedPerClient;
    if (isOff(rule)) return;
    const { hits, resetAt } = await this.store.peek(`${rule.name}:${client}`);
    if (hits < rule.limit || !resetAt) return;
    res.set('Retry-After', String(Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000))));
    throw new DomainError('TOO_MANY_REQUESTS', TOO_MANY);
  }
}
