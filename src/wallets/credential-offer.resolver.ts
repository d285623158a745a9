import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import { Certificate } from '../certificates/certificate.entity.js';
import type { RequestContext } from '../context/request-context.js';
import { credentialOffers, type OfferView } from './credential-offers.js';

@ObjectType({ description: 'An OpenID4VCI credential offer of a certificate to a wallet (docs/wallets.md).' })
export class CredentialOfferView implements OfferView {
  @Field(() => ID, { description: "The offer's uuid." })
  uuid!: string;

  @Field(() => ID, { description: 'The certificate it offers.' })
  certificateUuid!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Where the wallet reads the offer (it carries the pre-authorized code): only in the answer that made it.',
  })
  credentialOfferUri!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The deep link `openid-credential-offer://?credential_offer_uri=…` to show as a QR code or link; only in the answer that made it.',
  })
  offerUrl!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The PIN (tx_code) the wallet asks for, to give the student apart from the offer; only in the answer that made it.',
  })
  txCode!: string | null;

  @Field({ description: 'Whether the wallet must send a PIN (tx_code).' })
  txCodeRequired!: boolean;

  @Field(() => Date, { description: 'When its code stops working.' })
  expiresAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When a wallet took the token with its code (single use).' })
  redeemedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked, if it was.' })
  revokedAt!: Date | null;

  @Field(() => Int, { description: 'Credentials wallets received through it.' })
  claims!: number;

  @Field(() => Date, { description: 'When it was made.' })
  createdAt!: Date;
}

@InputType({ description: 'How a credential offer is made.' })
export class CredentialOfferInput {
  @Field(() => Boolean, { nullable: true, description: 'Ask the wallet for a 6-digit PIN, answered once here.' })
  txCode?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Lifetime in seconds (60 to 2592000); 900 by default.' })
  expiresInSeconds?: number | null;
}

@Resolver(() => Certificate)
export class CredentialOfferResolver {
  @FieldResolver(() => [CredentialOfferView], { description: 'Its credential offers to wallets, newest first (codes are not shown again).' })
  credentialOffers(@Root() certificate: Certificate, @Ctx() ctx: RequestContext): Promise<OfferView[]> {
    return credentialOffers.list(ctx, certificate.uuid);
  }

  @Mutation(() => CredentialOfferView, {
    description: 'An OpenID4VCI offer of a valid issued certificate: a single-use, short-lived pre-authorized code (and PIN).',
  })
  createCredentialOffer(
    @Arg('certificateUuid', () => ID, { description: 'The issued certificate to offer.' }) certificateUuid: string,
    @Arg('input', () => CredentialOfferInput, { nullable: true, description: 'PIN and lifetime; defaults when absent.' }) input: CredentialOfferInput | null,
    @Ctx() ctx: RequestContext,
  ): Promise<OfferView> {
    return credentialOffers.create(ctx, certificateUuid, input ?? {});
  }

  @Mutation(() => CredentialOfferView, { description: 'Revokes an offer: its code no longer redeems and its access tokens get no credential.' })
  revokeCredentialOffer(@Arg('uuid', () => ID, { description: 'The offer to revoke.' }) uuid: string, @Ctx() ctx: RequestContext): Promise<OfferView> {
    return credentialOffers.revoke(ctx, uuid);
  }
}
