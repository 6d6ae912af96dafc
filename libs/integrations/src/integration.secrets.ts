import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { open, seal, secretsKeyFrom } from '#platform/secrets';

/**
 * Integrations' secrets at rest: published `secrets` and each integration's signing secret are
 * sealed before they reach an event; they are opened only to run the script or sign a delivery,
 * and no endpoint, log line or audit entry ever shows them.
 */
@Injectable()
export class IntegrationSecrets {
  private readonly key: Buffer;
  private readonly pseudonymKey: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = secretsKeyFrom(config);
    this.pseudonymKey = createHmac('sha256', this.key).update('integrations: site_view visitor pseudonyms').digest();
  }

  seal(text: string): string {
    return seal(this.key, text);
  }

  open(sealed: string): string {
    return open(this.key, sealed);
  }

  /** The key of readers' pseudonyms in `site_view` (anonymousIdOf): derived from the secrets key, the same in every replica, and nothing else. */
  visitorPseudonymKey(): Buffer {
    return this.pseudonymKey;
  }

  newSigningSecret(): string {
    return this.seal(randomBytes(32).toString('base64url'));
  }
}
