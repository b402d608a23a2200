export * from './tenants.js';
export * from './api-tokens.js';
export * from './audit-logs.js';
