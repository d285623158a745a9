import DataLoader from 'dataloader';
import { Field, Int, ObjectType } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { anchorRecords, type AnchorRecord } from './blockcerts.service.js';
import { blockcertsUrls } from './blockcerts-documents.js';

@ObjectType({ description: "A certificate's blockchain anchoring: the transaction carrying the Merkle root of its batch (docs/anchoring.md)." })
export class CertificateAnchorView {
  @Field({ description: 'The Blockcerts network name written into the anchor (`mainnet`, `sepolia`, …).' })
  network!: string;

  @Field({ description: 'The anchoring transaction (0x…).' })
  txHash!: string;

  @Field(() => String, { nullable: true, description: 'That transaction in a block explorer (ANCHOR_TX_URL_TEMPLATE); null without one.' })
  txUrl!: string | null;

  @Field(() => Int, { description: 'The block that holds the transaction.' })
  blockNumber!: number;

  @Field(() => Date, { description: "The block's time." })
  anchoredAt!: Date;

  @Field({ description: 'The Merkle root the transaction carries (hex).' })
  merkleRoot!: string;
}

/** The request's batched reads of anchorings (one statement for every certificate of a page). */
export const anchorLoader = (ctx: Pick<RequestContext, 'loaders' | 'em'>) =>
  ctx.loaders.cached(
    'certificate-anchors',
    () =>
      new DataLoader<string, AnchorRecord | null>(async (uuids) => {
        const records = await anchorRecords(ctx, [...uuids]);
        return uuids.map((uuid) => records.get(uuid) ?? null);
      }),
  );

export const anchorView = (record: AnchorRecord, txUrl: string | null): CertificateAnchorView =>
  Object.assign(new CertificateAnchorView(), {
    network: record.network,
    txHash: record.txHash,
    txUrl,
    blockNumber: record.blockNumber,
    anchoredAt: record.anchoredAt,
    merkleRoot: record.merkleRoot,
  });

export const blockcertsUrlOf = (publicBaseUrl: string, certificateUuid: string) => blockcertsUrls(publicBaseUrl).credential(certificateUuid);
