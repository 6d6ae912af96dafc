export * from './site.events';
export * from './sites-ports.port';
export * from './published/site-content.port';
export * from './sites.context';
