import { type KeyObject, X509Certificate } from 'node:crypto';

/**
 * Checks of a channel configuration before it is saved (`ChannelAdapter.checkConfig`): a key that
 * does not parse, a certificate that does not match its key or is out of date, would otherwise
 * only show when the first callback fails to verify. `field` is the adapter's configuration
 * property; the payment module names it `fields.<name>` or `secrets.<name>`.
 */
export type ConfigProblem = { field: string; message: string };

/** What `read` returns, or the problem naming `field` when it throws. */
export function parsed<T>(problems: ConfigProblem[], field: string, read: () => T, message: string): T | null {
  try {
    return read();
  } catch {
    problems.push({ field, message });
    return null;
  }
}

/** An RSA private key (PEM, PKCS#8 or PKCS#1), or a problem. */
export function rsaPrivateKey(problems: ConfigProblem[], field: string, read: () => KeyObject): KeyObject | null {
  const key = parsed(problems, field, read, 'is not a readable private key (PEM, PKCS#8 or PKCS#1)');
  return key && rsaOnly(problems, field, key);
}

/** An RSA public key, or a problem. */
export function rsaPublicKey(problems: ConfigProblem[], field: string, read: () => KeyObject): KeyObject | null {
  const key = parsed(problems, field, read, 'is not a readable public key');
  return key && rsaOnly(problems, field, key);
}

function rsaOnly(problems: ConfigProblem[], field: string, key: KeyObject): KeyObject | null {
  if (key.asymmetricKeyType === 'rsa') return key;
  problems.push({ field, message: `is a ${key.asymmetricKeyType} key; the channel signs with RSA` });
  return null;
}

/** The first certificate of a PEM text, or a problem. */
export function certificate(problems: ConfigProblem[], field: string, pem: string): X509Certificate | null {
  return parsed(problems, field, () => new X509Certificate(pem), 'is not a readable PEM certificate');
}

/** A certificate within its validity period at `now`, or a problem. */
export function currentCertificate(problems: ConfigProblem[], field: string, cert: X509Certificate, now: Date): void {
  if (now < cert.validFromDate)
    problems.push({ field, message: `is not valid before ${cert.validFromDate.toISOString()}` });
  else if (now > cert.validToDate) problems.push({ field, message: `expired on ${cert.validToDate.toISOString()}` });
}

/** The certificate carries the public half of `key`. */
export function matchesKey(
  problems: ConfigProblem[],
  field: string,
  cert: X509Certificate,
  key: KeyObject,
  keyField: string,
): void {
  if (!cert.checkPrivateKey(key)) problems.push({ field, message: `does not match ${keyField}` });
}

/** An http(s) URL when given (empty: the channel's production gateway). */
export function gatewayUrl(problems: ConfigProblem[], field: string, value: string | undefined): void {
  if (!value) return;
  const protocol = parsed(problems, field, () => new URL(value).protocol, 'must be an http(s) URL');
  if (protocol && protocol !== 'https:' && protocol !== 'http:')
    problems.push({ field, message: 'must be an http(s) URL' });
}
