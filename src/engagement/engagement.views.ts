import { Field, Int, ObjectType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';

@ObjectType({ simpleResolvers: true, description: 'How often a certificate was used publicly over a period; people only (bots are not counted).' })
export class EngagementCounts {
  @Field(() => Int, { description: 'Views of the public verification page.' })
  pageViews!: number;

  @Field(() => Int, { description: 'Downloads of the signed certificate and transcript PDFs.' })
  pdfDownloads!: number;

  @Field(() => Int, { description: 'Fetches of the Open Badges 2.0 baked badge image.' })
  badgeFetches!: number;

  @Field(() => Int, { description: 'Fetches of the Open Badges 3.0 credential (JSON or baked image).' })
  credentialFetches!: number;

  @Field(() => Int, { description: 'Clicks on the page’s share buttons (LinkedIn, X, Facebook, e-mail).' })
  shareClicks!: number;

  @Field(() => Int, { description: 'Clicks on “Add to LinkedIn profile”.' })
  linkedinAdds!: number;

  @Field(() => Int, { description: 'Credentials (Open Badge, CLR transcript) a wallet received through an OpenID4VCI offer.' })
  walletClaims!: number;
}

@ObjectType({ simpleResolvers: true, description: 'The counts of one UTC day.' })
export class EngagementDay extends EngagementCounts {
  @Field(() => DateScalar, { description: '`YYYY-MM-DD`, UTC.' })
  day!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Privacy-preserving engagement of a certificate: daily counts, no addresses, cookies or user agents kept.' })
export class CertificateEngagementView {
  @Field(() => EngagementCounts, { description: 'Sums over every day recorded.' })
  totals!: EngagementCounts;

  @Field(() => [EngagementDay], { description: 'Days with at least one event, oldest first (at most the last 366).' })
  days!: EngagementDay[];
}
