import DataLoader from 'dataloader';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Certificate } from '../certificates/certificate.entity.js';
import type { RequestContext } from '../context/request-context.js';
import { Institution } from '../institutions/institution.entity.js';
import { badges, GONE } from './badge.service.js';
import { openBadgeCredentials } from './v3/credential.service.js';
import { ob3Urls } from './v3/did-web.js';
import { badgeStanding } from '../certificates/public-standing.js';
import type { BadgeDocument } from './open-badges.js';

/** `Institution.badgeIssuer`: the Open Badges 2.0 issuer profile, as hosted at its id. */
@Resolver(() => Institution)
export class InstitutionBadgeResolver {
  @FieldResolver(() => GraphQLJSONObject, { nullable: true, description: 'Open Badges 2.0 issuer profile (JSON-LD); null while badges are off.' })
  async badgeIssuer(@Root() institution: Institution, @Ctx() ctx: RequestContext): Promise<BadgeDocument | null> {
    const document = await badges.issuer(ctx, institution.uuid);
    return document === GONE ? null : document;
  }
}

/** `Certificate.badgeAssertion`: the Open Badges 2.0 assertion, as hosted at its id. */
@Resolver(() => Certificate)
export class CertificateBadgeResolver {
  @FieldResolver(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Open Badges 2.0 assertion (JSON-LD), `revoked: true` once revoked; null for a draft or while badges are off.',
  })
  async badgeAssertion(@Root() certificate: Certificate, @Ctx() ctx: RequestContext): Promise<BadgeDocument | null> {
    const answer = await badges.assertion(ctx, certificate.uuid);
    return answer?.document ?? null;
  }

  @FieldResolver(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'Open Badges 3.0 OpenBadgeCredential (W3C Verifiable Credential with an eddsa-rdfc-2022 Data Integrity proof), as signed at issuance; revocation shows in its status list. Null for a draft or when the institution issued no badges.',
  })
  openBadgeCredential(@Root() certificate: Certificate, @Ctx() ctx: RequestContext): Promise<Record<string, unknown> | null> {
    // One query for every certificate of the response, not one each.
    const loader = ctx.loaders.cached('ob3:credentials', () => new DataLoader((uuids: readonly string[]) => openBadgeCredentials.credentials(ctx, uuids)));
    return loader.load(certificate.uuid);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'Its academic transcript as a 1EdTech CLR 2.0 ClrCredential (public, CORS open), issued with its Open Badges 3.0 credential; null for a draft or while badges are off.',
  })
  async clrUrl(@Root() certificate: Certificate, @Ctx() ctx: RequestContext): Promise<string | null> {
    // The institution's loader: the embedded institution of the same response reads it anyway.
    const institution = await ctx.loaders.one(Institution, certificate.institution);
    return badgeStanding(certificate, institution) === 'absent' ? null : ob3Urls(ctx.publicBaseUrl).clr(certificate.uuid);
  }
}
