export * from './integration.events';
export * from './integrations.needs';
export * from './integrations.context';
export { IntegrationsForSites } from './integrations.provides';
// Receivers verify deliveries with these (docs/api/integrations.md, "Development tunnel").
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signature, verifySignature } from './delivery/tunnel-delivery';
// The aggregates and the sealing of secrets, for the CLI's `seed` (events made by the deciders themselves).
export {
  integrationDecider,
  integrationStream,
  installationDecider,
  installationStream,
  installationIdOf,
  type IntegrationCommand,
  type InstallationCommand,
} from './integration.decider';
export { IntegrationSecrets } from './integration.secrets';
