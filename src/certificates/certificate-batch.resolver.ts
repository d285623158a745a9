import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { Job } from '../jobs/job.entity.js';
import { issueBatch } from './certificate-batch-job.js';
import { CertificateInput } from './certificate.inputs.js';

@Resolver()
export class CertificateBatchResolver {
  @Mutation(() => Job, {
    description:
      'Creates up to 500 certificates (as `createCertificate` does, each in its own transaction). Every item is checked first: any failing item refuses the whole batch with `extensions.errors` keyed `inputs.<index>.<field>`. Up to 50 items run during the request (the job comes back `completed` with `results`); longer batches come back `queued`: follow them with `job(uuid:)`.',
  })
  createCertificates(
    // Items are validated by the batch itself, so each failure is reported with its index.
    @Arg('inputs', () => [CertificateInput], { validate: false, description: 'The certificates, in the order results report them.' })
    inputs: CertificateInput[],
    @Ctx() ctx: RequestContext,
  ): Promise<Job> {
    return issueBatch(ctx, inputs);
  }
}
