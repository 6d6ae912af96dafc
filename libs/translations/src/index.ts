export * from './translation.events';
export * from './translations-ports.port';
export * from './translations.context';
