export * from './site.events';
export * from './sites-ports.port';
export * from './sites.context';
