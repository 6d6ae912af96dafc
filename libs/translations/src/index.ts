export * from './translation.events';
export * from './translations.needs';
export * from './translations.context';
