import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

export interface PublicSigningJwk {
  kty: 'RSA';
  alg: 'RS256';
  use: 'sig';
  kid: string;
  n: string;
  e: string;
}

export interface ToolKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicSigningJwk;
}

/**
 * Loads the tool's RSA signing keys (the first one signs; all are published so keys can be rotated without breaking
 * tokens in flight). The kid is the RFC 7638 thumbprint, so it is stable across restarts and instances.
 */
export async function loadToolKeys(privateKeyPems: string[]): Promise<ToolKey[]> {
  return Promise.all(
    privateKeyPems.map(async (pem, index) => {
      const privateKey = createPrivateKey(pem);
      if (privateKey.asymmetricKeyType !== 'rsa') {
        throw new Error(`LTI_TOOL_PRIVATE_KEY: key ${index + 1} is not an RSA key`);
      }
      const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits < 2048) throw new Error(`LTI_TOOL_PRIVATE_KEY: key ${index + 1} has ${bits} bits; at least 2048 are required`);
      const jwk: JWK = await exportJWK(createPublicKey(privateKey));
      const kid = await calculateJwkThumbprint(jwk, 'sha256');
      // Only the public members are copied, so a private member can never leak into the published set.
      const publicJwk: PublicSigningJwk = { kty: 'RSA', alg: 'RS256', use: 'sig', kid, n: jwk.n!, e: jwk.e! };
      return { kid, privateKey, publicJwk };
    }),
  );
}
