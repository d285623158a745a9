/**
 * `npm run bench -- anchoring`: BENCH_ANCHOR_CERTIFICATES (10,000) issued certificates anchored on the
 * embedded chain (`ANCHOR_RPC_URL=embedded`, the default ANCHOR_MAX_BATCH). BENCH_ANCHOR_ISSUED (50)
 * of them are issued through the API (real PDFs, signatures, transcripts); the rest are SQL copies of
 * those rows (each its own uuid and source file row), since anchoring reads rows and does not care how
 * they were made, and issuing 10,000 through the API would be the issuance bench again. Prints
 * transactions sent, time to anchor them all, CPU per certificate (event loop, whole process, PostgreSQL).
 */
import { JsonRpcProvider } from 'ethers';
import { cpuSample } from './cpu.js';
import { issueOne, seedIssuances } from './issuance.js';
import { openBenchEnv } from './support.js';

const TOTAL = Number(process.env.BENCH_ANCHOR_CERTIFICATES ?? 10_000);
const ISSUED = Math.min(TOTAL, Number(process.env.BENCH_ANCHOR_ISSUED ?? 50));

/** Copies every issued certificate of the database until there are `total`: new uuid, new source file row (live source files are unique), same documents. */
const CLONE = `
with sources as (select uuid, source_file_uuid, row_number() over (order by uuid) - 1 as n, count(*) over () as k from certificates where status = 'issued'),
plan as (select gen_random_uuid() as certificate, gen_random_uuid() as file, s.uuid as src, s.source_file_uuid as src_file
  from generate_series(1, ?::int) g join sources s on s.n = g % s.k),
files_copied as (
  insert into files select (jsonb_populate_record(null::files, to_jsonb(f) || jsonb_build_object('uuid', p.file, 'hash', encode(sha256(p.file::text::bytea), 'hex')))).*
  from plan p join files f on f.uuid = p.src_file returning uuid),
certificates_copied as (
  insert into certificates select (jsonb_populate_record(null::certificates, to_jsonb(c) || jsonb_build_object('uuid', p.certificate, 'source_file_uuid', p.file))).*
  from plan p join certificates c on c.uuid = p.src where (select count(*) from files_copied) >= 0 returning uuid)
insert into certificate_documents select (jsonb_populate_record(null::certificate_documents, to_jsonb(d) || jsonb_build_object(
    'uuid', gen_random_uuid(), 'certificate_uuid', p.certificate, 'file_uuid', case when d.type = 'source' then p.file else d.file_uuid end))).*
  from plan p join certificate_documents d on d.certificate_uuid = p.src where (select count(*) from certificates_copied) >= 0`;

const count = async (execute: (sql: string) => Promise<{ n: string }[]>, sql: string) => Number((await execute(sql))[0]!.n);

export async function runAnchoringBench(): Promise<void> {
  console.log('\nanchoring');
  const env = await openBenchEnv({ env: { ANCHOR_RPC_URL: 'embedded', ANCHOR_NETWORK: 'sepolia', ANCHOR_INTERVAL_SECONDS: '86400' } });
  try {
    const anchoring = env.runtime.anchoring!;
    const execute = (sql: string, params: unknown[] = []) => env.orm.em.fork().execute<{ n: string }[]>(sql, params);
    const { bodies } = await seedIssuances(env, ISSUED);
    for (const body of bodies) await issueOne(env, body);
    if (TOTAL > ISSUED) await execute(CLONE, [TOTAL - ISSUED]);
    const waiting = await count(execute, `select count(*) as n from certificates where status = 'issued' and blockchain_tx_hash is null`);
    console.log(
      `  ${waiting} issued certificates waiting (${ISSUED} through the API, ${waiting - ISSUED} SQL copies); ANCHOR_MAX_BATCH ${anchoring.config.maxBatch}`,
    );
    // Verifiers accept transactions only after the key's registration second: the first run waits it out.
    await new Promise((resolve) => setTimeout(resolve, 2100));

    const chain = new JsonRpcProvider(anchoring.rpcUrl, undefined, { staticNetwork: true });
    const nonceBefore = await chain.getTransactionCount(anchoring.identity.address, 'latest');
    const before = await cpuSample(env.postgresPid);
    const processBefore = process.cpuUsage();
    const started = performance.now();
    let anchored = 0;
    let runs = 0;
    while (anchored < waiting) {
      const recorded = await anchoring.runOnce();
      runs += 1;
      if (recorded === 0) throw new Error(`an anchoring run recorded nothing after ${anchored} of ${waiting}`);
      anchored += recorded;
    }
    const seconds = (performance.now() - started) / 1000;
    const processUsage = process.cpuUsage(processBefore);
    const after = await cpuSample(env.postgresPid);
    const transactions = (await chain.getTransactionCount(anchoring.identity.address, 'latest')) - nonceBefore;
    chain.destroy();
    const left = await count(execute, `select count(*) as n from certificates where status = 'issued' and blockchain_tx_hash is null`);
    const per = (ms: number) => `${((1000 * ms) / anchored).toFixed(0)} µs`;
    console.log(`  anchored ${anchored} certificates in ${runs} run(s), ${transactions} transaction(s) sent; ${left} left unanchored`);
    console.log(`  time to anchor them all: ${seconds.toFixed(1)} s (${(anchored / seconds).toFixed(0)} certificates/s)`);
    console.log(
      `  CPU per certificate: event loop ${per(after.serverMs - before.serverMs)}, whole process (chain included) ${per((processUsage.user + processUsage.system) / 1000)}` +
        (after.postgresMs !== undefined && before.postgresMs !== undefined ? `, PostgreSQL ${per(after.postgresMs - before.postgresMs)}` : ''),
    );
  } finally {
    await env.stop();
  }
}
