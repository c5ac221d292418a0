import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelCAdapter } from '../../src/modules/payment/channels/channel-c/adapter.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelCSimulator, SIM_MER_ID, startChannelCSimulator } from './simulator/channel-c.ts';

/**
 * The oracle for channel_c: no maintained npm SDK exists, so openssl checks the chain and the
 * signatures both ways — the simulator's messages verify with openssl, messages openssl signs
 * verify with the adapter, and the adapter's requests verify with openssl. Skipped only when
 * openssl is not installed.
 */
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const DAY = 86_400_000;
let sim: ChannelCSimulator;
let dir: string;
const adapter = createChannelCAdapter({ egress: createEgress(), clock: () => new Date() });

const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const openssl = (...args: string[]) => spawnSync('openssl', args, { encoding: 'utf8' });

/** The 5.1.0 signing string, written out here as the test's own reading of the specification. */
const signingString = (f: Record<string, string>) =>
  Object.keys(f)
    .filter((k) => k !== 'signature' && f[k] !== '')
    .sort()
    .map((k) => `${k}=${f[k]}`)
    .join('&');

/** openssl's SHA-256 of the signing string, as the lowercase hex the signature covers. */
function opensslDigestHex(fields: Record<string, string>): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-r', file('string.txt', signingString(fields))], {
    encoding: 'utf8',
  });
  return out.split(' ')[0] ?? '';
}

function opensslVerifies(fields: Record<string, string>, certPem: string): boolean {
  const pub = execFileSync('openssl', ['x509', '-pubkey', '-noout', '-in', file('cert.pem', certPem)], {
    encoding: 'utf8',
  });
  const res = openssl(
    'dgst',
    '-sha256',
    '-verify',
    file('pub.pem', pub),
    '-signature',
    file('sig.bin', Buffer.from(fields.signature ?? '', 'base64')),
    file('hex.txt', opensslDigestHex(fields)),
  );
  return res.status === 0 && res.stdout.includes('Verified OK');
}

beforeAll(async () => {
  sim = await startChannelCSimulator();
  dir = mkdtempSync(join(tmpdir(), 'channel-c-openssl-'));
});
afterAll(async () => {
  await sim.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasOpenssl)('channel_c against openssl', () => {
  const chainOk = (leafPem: string) =>
    openssl(
      'verify',
      '-CAfile',
      file('root.pem', sim.root.certPem),
      '-untrusted',
      file('middle.pem', sim.middle.certPem),
      file('leaf.pem', leafPem),
    );

  it('openssl and the adapter agree on the chain: the signer passes, a foreign or expired leaf does not', async () => {
    expect(chainOk(sim.signer.certPem).stdout).toContain('leaf.pem: OK');

    const foreignRoot = await sim.createRootCa({ subject: sim.root.subject });
    const foreignMiddle = await sim.issueFrom(foreignRoot, { subject: sim.middle.subject, ca: true });
    const foreign = await sim.issueFrom(foreignMiddle, { subject: sim.signer.subject });
    expect(chainOk(foreign.certPem).status).not.toBe(0);

    const expired = await sim.issueFrom(sim.middle, {
      subject: sim.signer.subject,
      notBefore: new Date(Date.now() - 30 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const res = chainOk(expired.certPem);
    expect(res.status).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(/certificate has expired/);

    for (const [leaf, valid] of [
      [sim.signer, true],
      [foreign, false],
      [expired, false],
    ] as const) {
      sim.open(`P2026112420${leaf.cert.serialNumber.slice(0, 6)}`, 100);
      const fields = sim.pay(`P2026112420${leaf.cert.serialNumber.slice(0, 6)}`, leaf);
      const result = await adapter.verifyCallback(
        sim.config(),
        { rawBody: Buffer.from(sim.formBody(fields)), headers: {} },
        new Date(),
      );
      expect(result.valid).toBe(valid);
    }
  });

  it("the simulator's notices verify with openssl (SHA256withRSA over the hex SHA-256)", () => {
    sim.open('P20261124200001', 4_321);
    const fields = sim.pay('P20261124200001');
    expect(opensslVerifies(fields, sim.signer.certPem)).toBe(true);
    expect(opensslVerifies({ ...fields, txnAmt: '1' }, sim.signer.certPem)).toBe(false);
  });

  it('a notice signed by openssl verifies with the adapter, and fails once a field changes', async () => {
    const fields: Record<string, string> = {
      version: '5.1.0',
      encoding: 'UTF-8',
      signMethod: '01',
      txnType: '01',
      txnSubType: '01',
      bizType: '000201',
      accessType: '0',
      merId: SIM_MER_ID,
      orderId: 'P20261124200002',
      txnTime: '20261124120000',
      txnAmt: '990',
      currencyCode: '156',
      queryId: '792611241200001234567',
      respCode: '00',
      respMsg: '成功[0000000]',
      reqReserved: '{a=1&b=2}',
      signPubKeyCert: sim.signer.certPem,
    };
    const hex = opensslDigestHex(fields);
    execFileSync('openssl', [
      'dgst',
      '-sha256',
      '-sign',
      file('key.pem', sim.signer.keyPem),
      '-out',
      join(dir, 'out.bin'),
      file('hex-sign.txt', hex),
    ]);
    const signed = { ...fields, signature: readFileSync(join(dir, 'out.bin')).toString('base64') };
    const verify = (f: Record<string, string>) =>
      adapter.verifyCallback(
        sim.config(),
        { rawBody: Buffer.from(new URLSearchParams(f).toString()), headers: {} },
        new Date(),
      );
    expect(await verify(signed)).toMatchObject({
      valid: true,
      notice: {
        orderNo: 'P20261124200002',
        amount: 990,
        outcome: 'succeeded',
        occurredAt: new Date('2026-11-24T04:00:00Z'),
      },
    });
    expect(await verify({ ...signed, respMsg: '成功' })).toEqual({
      valid: false,
      reason: 'signature: does not match the message',
    });
  });

  it("the adapter's requests verify with openssl against the merchant certificate", async () => {
    const start = await adapter.createPayment(sim.config(), {
      orderNo: 'P20261124200003',
      amount: 100,
      currency: 'CNY',
      subject: 'x',
      expiresAt: new Date(Date.now() + 3_600_000),
      notifyUrl: 'https://atrium.example/notify?a=1&b=2',
    });
    const fields = start.payload.fields as Record<string, string>;
    expect(opensslVerifies(fields, sim.merchant.certPem)).toBe(true);
    expect(opensslVerifies({ ...fields, txnAmt: '1' }, sim.merchant.certPem)).toBe(false);
  });
});
