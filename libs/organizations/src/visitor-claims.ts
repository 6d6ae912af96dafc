import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK, type Clock } from '#platform/clock';
import { jose } from '#platform/lazy-package';
import { VISITOR_CLAIMS_KEY } from './organizations.needs';

/** The value of the VISITOR_CLAIMS_KEY port (organizations.needs.ts): every replica derives the same key from the admin token. */
export function visitorClaimsKey(adminToken: string): Uint8Array {
  return createHmac('sha256', adminToken).update('visitor-claims').digest();
}

/**
 * `serviceVisitorClaims` of `POST /ping`: an HS256 JWT naming the user and the organization, valid
 * for an hour, that a client can attach to the user.
 */
@Injectable()
export class VisitorClaimsSigner {
  constructor(
    @Inject(VISITOR_CLAIMS_KEY) private readonly key: Uint8Array,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  sign(userId: string, organizationId: string, email: string): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new (jose().SignJWT)({ org: organizationId, email })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.config.publicUrl)
      .setAudience(`${this.config.publicUrl}/v1/orgs/${organizationId}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(this.key);
  }
}
