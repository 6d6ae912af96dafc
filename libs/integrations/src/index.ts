export * from './integration.events';
export * from './integrations-ports.port';
export * from './integrations.context';
export { IntegrationsForSites } from './integration.ports';
// Receivers verify deliveries with these (the README's "Development tunnel").
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signature, verifySignature } from './delivery/tunnel-delivery';
