import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { open, seal, secretsKeyFrom } from '../../platform/src/secrets';

/**
 * Integrations' secrets at rest: published `secrets` and each integration's signing secret are
 * sealed before they reach an event; they are opened only to run the script or sign a delivery,
 * and no endpoint, log line or audit entry ever shows them.
 */
@Injectable()
export class IntegrationSecrets {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = secretsKeyFrom(config);
  }

  seal(text: string): string {
    return seal(this.key, text);
  }

  open(sealed: string): string {
    return open(this.key, sealed);
  }

  newSigningSecret(): string {
    return this.seal(randomBytes(32).toString('base64url'));
  }
}
