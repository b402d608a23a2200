export * from './tenants.js';
export * from './api-tokens.js';
export * from './audit-logs.js';
export * from './requests.js';
export * from './cost-logs.js';
