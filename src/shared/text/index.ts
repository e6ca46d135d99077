export * from './numbers';
export * from './safe';
