export * from './baselineStore';
export * from './compare';
export * from './environment';
export * from './runSummary';
